package difftest

import (
	"os"
	"strconv"
	"testing"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/engine/enginetest/inproc"
)

// target is one running server a script is played against.
type target struct {
	name    string // "reference" or "stalkd", for messages
	addr    string // host:port
	pid     int    // the process serving it, for enginetest.Settle
	version string // what its stats document reports as version
}

// maxJobOrDefault is the -z value a script runs with.
func maxJobOrDefault(n uint32) uint32 {
	if n == 0 {
		return 65535
	}
	return n
}

// startReference starts the reference (enginetest.Reference: no probe
// connection skews its counters) for the rest of the test.
func startReference(t *testing.T, maxJob uint32) target {
	t.Helper()
	p := enginetest.Reference(t, "-z", strconv.FormatUint(uint64(maxJobOrDefault(maxJob)), 10))
	return target{name: "reference", addr: p.Addr(), pid: p.Pid(), version: "1.12"}
}

// startStalkd starts stalkd in-process with the given maximum job size (0:
// the default, as for the reference) and one event loop, as the reference
// has one thread: enginetest.Settle needs a loop that has handled what it
// read when it sleeps. Its warnings and errors go to the test log.
func startStalkd(t *testing.T, maxJob uint32) target {
	t.Helper()
	srv := inproc.Start(t, engine.Config{
		MaxJobSize: maxJobOrDefault(maxJob),
		EventLoops: 1,
		Logger:     zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.WarnLevel),
	})
	return target{name: "stalkd", addr: srv.Addr().String(), pid: os.Getpid(), version: engine.ProtocolVersion}
}
