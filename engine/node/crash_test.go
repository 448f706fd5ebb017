package node_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// TestCrashRecovery builds stalkd, runs it with -b under concurrent
// producers and consumers, SIGKILLs it at a random moment, restarts it on
// the same directory and checks that every acknowledged put is there (with
// its body) unless its delete was acknowledged, that every acknowledged
// delete stays gone, and that ids never repeat. Several rounds, each killed
// at a different point, share the directory; they take turns at each fsync
// policy (-f0, the default -f 50, -F): a process crash loses nothing
// acknowledged at any of them, since every reply follows the write(2) of
// its records. Every 40th body is large (20 KB: written around the chunk,
// from the job's memory).
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the real binary")
	}
	dir := enginetest.ShmDir(t)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	tr := enginetest.NewTracker()
	policies := [][]string{nil, {"-f", "50"}, {"-F"}}
	rounds := 9
	for round := range rounds {
		srv := startCrashServer(t, dir, policies[round%len(policies)]...)
		tr.Verify(t, srv.Addr(), round)
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for p := range 3 {
			wg.Add(1)
			go func() { defer wg.Done(); enginetest.Produce(srv.Addr(), tr, stop, fmt.Sprintf("r%d-p%d", round, p)) }()
		}
		for c := range 4 {
			wg.Add(1)
			go func() { defer wg.Done(); enginetest.Consume(srv.Addr(), tr, stop, uint64(round*10+c)) }()
		}
		time.Sleep(time.Duration(20+rng.IntN(300)) * time.Millisecond) // let traffic run: the kill point
		srv.Kill()
		close(stop)
		wg.Wait()
	}
	srv := startCrashServer(t, dir)
	tr.Verify(t, srv.Addr(), rounds)
	puts, deletes := tr.Counts()
	t.Logf("%d rounds: %d acknowledged puts, %d acknowledged deletes, all accounted for; %s",
		rounds, puts, deletes, binlogStats(t, srv.Addr()))
	require.Positive(t, puts)
	require.Positive(t, deletes)
	srv.Kill()
}

// binlogStats returns the binlog lines of the stats document.
func binlogStats(t *testing.T, addr string) string {
	doc := enginetest.Dial(t, addr).Ask("stats\r\n").Body
	var out []string
	for _, l := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(l, "binlog-") {
			out = append(out, l)
		}
	}
	return strings.Join(out, ", ")
}

// startCrashServer starts the built binary (not race-instrumented) on dir
// with -f0 and 64 KiB segments; extra flags follow (a later -f or -s wins).
func startCrashServer(t *testing.T, dir string, extra ...string) *enginetest.Proc {
	args := append([]string{"-l", "127.0.0.1", "-p", "0", "-b", dir, "-f", "0", "-s", "65536"}, extra...)
	return enginetest.StartProcess(t, args...)
}
