package engine

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Version is stalkd's own version: printed by stalkd -v, logged at start,
// reported by the admin API and the build-info metric. It is the one place
// the string lives.
const Version = "0.2.0"

// ProtocolVersion is the beanstalkd protocol version stalkd implements, and
// what the stats document reports as version. Clients gate features on it
// (a Java client asserts at least 1.4.4, a Perl client skips kick-job below
// 1.8), so it names the reference release whose protocol we speak, not our
// own release.
const ProtocolVersion = "1.13"

// procInfo is the process half of the stats document that never changes,
// read once when the server is created.
type procInfo struct {
	pid      int
	version  string
	id       string // 16 lowercase hex digits, random per process
	hostname string // uname nodename
	osName   string // uname version, e.g. "#1 SMP PREEMPT_DYNAMIC ..."
	platform string // uname machine
	start    time.Time
}

// instanceID is the stats "id": random, drawn once per process.
var instanceID = sync.OnceValue(func() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
})

func loadProcInfo(version string) procInfo {
	p := procInfo{pid: os.Getpid(), version: version, id: instanceID(), start: time.Now()}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		p.hostname = unix.ByteSliceToString(u.Nodename[:])
		p.osName = unix.ByteSliceToString(u.Version[:])
		p.platform = unix.ByteSliceToString(u.Machine[:])
	}
	return p
}

// rusage returns the process's user and system CPU times.
func rusage() (utime, stime unix.Timeval) {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return
	}
	return ru.Utime, ru.Stime
}
