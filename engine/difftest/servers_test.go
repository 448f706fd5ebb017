package difftest

import (
	"bufio"
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// target is one running server a script is played against.
type target struct {
	name    string // "reference" or "stalkd", for messages
	addr    string // host:port
	version string // what its stats document reports as version
}

// referencePath returns the reference binary, or skips the test with a clear
// message when it is not installed.
func referencePath(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("beanstalkd")
	if err != nil {
		t.Skip("difftest: beanstalkd (the reference, 1.12) is not on PATH; " +
			"install it (apt-get install -y beanstalkd) to run the differential tests")
	}
	return path
}

// maxJobOrDefault is the -z value a script runs with.
func maxJobOrDefault(n uint32) uint32 {
	if n == 0 {
		return 65535
	}
	return n
}

// startReference starts the reference binary on a free loopback port for the
// rest of the test and returns it. It asks for port 0 and learns the bound
// port from -V's "bind FD ADDR:PORT" line, so no probe connection skews the
// connection counters.
func startReference(t *testing.T, path string, maxJob uint32) target {
	t.Helper()
	cmd := exec.Command(path, "-V", "-l", "127.0.0.1", "-p", "0",
		"-z", strconv.FormatUint(uint64(maxJobOrDefault(maxJob)), 10))
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := new(lockedBuffer)
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())

	addrc := make(chan string, 1)
	drained := make(chan struct{})
	go func() { // reads -V's log until the process dies, so it never blocks on stdout
		defer close(drained)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "bind" {
				addrc <- f[2]
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-drained
		_ = cmd.Wait()
	})

	select {
	case addr := <-addrc:
		return target{name: "reference", addr: addr, version: "1.12"}
	case <-drained:
		t.Fatalf("reference exited before binding: %s", stderr)
	case <-time.After(15 * time.Second):
		t.Fatalf("reference did not bind within 15s: %s", stderr)
	}
	return target{}
}

// lockedBuffer is a bytes.Buffer safe for the writer goroutine of exec.Cmd
// and a reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
