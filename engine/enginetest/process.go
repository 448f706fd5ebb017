package enginetest

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ReferencePath is where Debian installs the reference server.
const ReferencePath = "/usr/bin/beanstalkd"

// Proc is a server running as a child process until the test ends.
type Proc struct {
	Cmd  *exec.Cmd
	addr string
	done chan struct{} // closed when the process has exited and its log is read
	err  error         // Wait's result, after done

	mu  sync.Mutex
	log []string // the first lines of its log (stderr, and stdout for the reference)
}

// maxLogLines bounds what a Proc keeps of its log.
const maxLogLines = 500

// Addr is the address it listens on.
func (p *Proc) Addr() string { return p.addr }

// Pid is its process id.
func (p *Proc) Pid() int { return p.Cmd.Process.Pid }

// Log returns what it logged so far (the first lines).
func (p *Proc) Log() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.log, "\n")
}

// Kill kills it (SIGKILL) and waits until it is gone.
func (p *Proc) Kill() {
	_ = p.Cmd.Process.Kill()
	<-p.done
}

// Signal sends sig.
func (p *Proc) Signal(sig os.Signal) error { return p.Cmd.Process.Signal(sig) }

// Stop asks it to stop (SIGTERM) and returns its exit code, or -1 when it
// did not exit within Timeout (it is killed then).
func (p *Proc) Stop() int {
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	return p.Wait()
}

// Wait waits for it to exit by itself and returns its exit code; -1 when it
// did not exit within Timeout (it is killed then).
func (p *Proc) Wait() int {
	select {
	case <-p.done:
	case <-time.After(Timeout):
		p.Kill()
		return -1
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		return -1
	}
	return 0
}

// start starts cmd, reads its output line by line into the log and offers
// each line to seen (which returns the listening address once it knows it)
// until the process exits. It waits for the address, or fails the test.
func start(t testing.TB, cmd *exec.Cmd, what string, seen func(line string) string) *Proc {
	t.Helper()
	pr, pw := io.Pipe()
	if cmd.Stdout == nil {
		cmd.Stdout = pw
	}
	cmd.Stderr = pw
	require.NoError(t, cmd.Start())
	p := &Proc{Cmd: cmd, done: make(chan struct{})}
	addrc := make(chan string, 1)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			if len(p.log) < maxLogLines {
				p.log = append(p.log, line)
			}
			p.mu.Unlock()
			if a := seen(line); a != "" {
				select {
				case addrc <- a:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	go func() {
		p.err = cmd.Wait()
		_ = pw.Close()
		<-drained
		close(p.done)
	}()
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("%s log:\n%s", what, p.Log())
		}
	})
	select {
	case p.addr = <-addrc:
		return p
	case <-p.done:
		t.Fatalf("%s exited before listening (%v):\n%s", what, p.err, p.Log())
	case <-time.After(Timeout):
		t.Fatalf("%s did not listen within %v:\n%s", what, Timeout, p.Log())
	}
	return nil
}

// Reference starts the reference beanstalkd (1.12) on a free loopback port
// with the extra arguments (-z 10, say), or skips the test when it is not
// installed. It returns once the socket listens, learnt from -V's
// "bind FD ADDR:PORT" line and the kernel's socket table: no probe
// connection, so its connection counters start at zero.
func Reference(t testing.TB, extra ...string) *Proc {
	t.Helper()
	bin := ReferencePath
	if _, err := os.Stat(bin); err != nil {
		var lerr error
		if bin, lerr = exec.LookPath("beanstalkd"); lerr != nil {
			t.Skip("beanstalkd (the reference, 1.12) is not installed; " +
				"apt-get install -y beanstalkd to run the tests against it")
		}
	}
	args := append([]string{"-V", "-l", "127.0.0.1", "-p", "0"}, extra...)
	p := start(t, exec.Command(bin, args...), "beanstalkd", func(line string) string {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "bind" {
			return f[2]
		}
		return ""
	})
	// -V prints the address before listen(): wait for the kernel to list
	// the socket as listening.
	deadline := time.Now().Add(Timeout)
	for !listening(p.addr) {
		if time.Now().After(deadline) {
			t.Fatalf("beanstalkd bound %s but does not listen:\n%s", p.addr, p.Log())
		}
		select {
		case <-p.done:
			t.Fatalf("beanstalkd exited before listening (%v):\n%s", p.err, p.Log())
		case <-time.After(time.Millisecond):
		}
	}
	return p
}

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// Build builds the stalkd binary (without the race detector: what it
// measures is the real program's) once per test binary, and returns its
// path; the test is skipped when it cannot be built (no go tool).
func Build(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = err
			return
		}
		dir, err := os.MkdirTemp("", "stalkd-bin")
		if err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(dir, "stalkd")
		cmd := exec.Command(goTool, "build", "-o", buildPath, "github.com/stalkd/stalkd/cmd/stalkd")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = errors.New(err.Error() + ": " + string(out))
		}
	})
	if buildErr != nil {
		t.Skipf("cannot build stalkd: %v", buildErr)
	}
	return buildPath
}

// StartProcess starts the stalkd binary (Build) with args and returns once
// it accepts connections (its "listening" log line; the socket listens
// before the line is written). Pass -l and -p: "-l", "127.0.0.1", "-p", "0".
func StartProcess(t testing.TB, args ...string) *Proc {
	t.Helper()
	return StartCommand(t, exec.Command(Build(t), args...))
}

// StartCommand is StartProcess for a prepared command (another binary, the
// test binary doubling as stalkd, an environment). Its JSON log must go to
// stderr.
func StartCommand(t testing.TB, cmd *exec.Cmd) *Proc {
	t.Helper()
	return start(t, cmd, "stalkd", listeningAddr)
}

// listeningAddr returns the address of stalkd's "listening" JSON log line
// (its plain address, else its TLS one), or "" for any other line.
func listeningAddr(line string) string {
	var l struct {
		Message, Addr string
		TLSAddr       string `json:"tls_addr"`
	}
	if json.Unmarshal([]byte(line), &l) == nil && l.Message == "listening" {
		if l.Addr != "" {
			return l.Addr
		}
		return l.TLSAddr
	}
	return ""
}

// Count returns how many lines of its log so far contain s.
func (p *Proc) Count(s string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return countContaining(p.log, s)
}

// countContaining counts the lines that contain s.
func countContaining(lines []string, s string) int {
	n := 0
	for _, l := range lines {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

// RemoveBuild deletes what Build built; for TestMain, after m.Run.
func RemoveBuild() {
	if buildPath != "" {
		_ = os.RemoveAll(filepath.Dir(buildPath))
	}
}
