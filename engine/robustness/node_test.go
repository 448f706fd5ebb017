package robustness

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// node is one stalkd process of the system under test, restarted on the
// same directory and flags as often as a fault asks. Its log (every run,
// appended) goes to a file in the run directory, and the lines the runner
// follows (listening, leading) are parsed as they come.
//
// Concurrency: the methods are safe for concurrent use; start, kill,
// restart and the signals are called by one goroutine at a time (the fault
// injector's).
type node struct {
	id      string   // n1, n2, n3, or "single"
	bin     string   // the stalkd binary
	dir     string   // -b
	args    []string // every argument but the binary
	env     []string // added to the test's environment
	ctl     string   // the failpoint control file
	logPath string
	cluster bool
	// restored is told each time the process rebuilds its queue from its
	// log (a single node's start, a cluster member's new term).
	restored func(time.Time)

	mu        sync.Mutex
	cmd       *exec.Cmd
	exited    chan struct{}
	addr      string  // client port of the current run
	admin     string  // admin port of the current run
	leadTerm  float64 // the term it leads in; 0 when it does not
	snapshots int     // remote snapshots installed (this run)
	ctlGen    int
	faults    []string // the failpoint lines in force
	lines     map[string]int
}

// start runs the process and waits until it serves its client port.
func (n *node) start() error {
	logf, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	fmt.Fprintf(logf, "=== start %s %v\n", time.Now().Format(time.RFC3339Nano), n.args)
	cmd := exec.Command(n.bin, n.args...)
	cmd.Env = append(append(os.Environ(), "STALKD_FAILPOINTS="+n.ctl), n.env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		logf.Close()
		return err
	}
	cmd.Stdout = logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	exited := make(chan struct{})
	ready := make(chan string, 1)
	n.mu.Lock()
	n.cmd, n.exited, n.addr, n.admin, n.leadTerm, n.snapshots = cmd, exited, "", "", 0, 0
	n.lines = map[string]int{}
	n.mu.Unlock()
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			logf.Write(append(sc.Bytes(), '\n'))
			n.follow(sc.Bytes(), ready)
		}
		_ = cmd.Wait()
		fmt.Fprintf(logf, "=== exited %s: %v\n", time.Now().Format(time.RFC3339Nano), cmd.ProcessState)
		logf.Close()
		n.mu.Lock()
		n.leadTerm = 0
		n.mu.Unlock()
		close(exited)
	}()
	select {
	case a := <-ready:
		n.mu.Lock()
		n.addr = a
		n.mu.Unlock()
		return nil
	case <-exited:
		return fmt.Errorf("%s exited before listening (log: %s)", n.id, n.logPath)
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		return fmt.Errorf("%s did not listen within 60s (log: %s)", n.id, n.logPath)
	}
}

// follow reads one log line of the process.
func (n *node) follow(b []byte, ready chan<- string) {
	var l struct {
		Message, Addr, Component string
		Term                     float64
	}
	if json.Unmarshal(b, &l) != nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lines[l.Message]++
	switch {
	case l.Message == "listening" && l.Addr != "" && (!n.cluster || l.Component == "cluster"):
		select {
		case ready <- l.Addr:
		default:
		}
	case l.Message == "admin listener started":
		n.admin = l.Addr
	case l.Message == "leading: queue restored":
		n.leadTerm = l.Term
		if n.restored != nil {
			n.restored(time.Now())
		}
	case l.Message == "jobs restored" && !n.cluster && n.restored != nil:
		n.restored(time.Now())
	case l.Message == "no longer leading: queue discarded":
		n.leadTerm = 0
	case l.Message == "installed remote snapshot":
		n.snapshots++
	}
}

// seen returns how many lines of this run had message msg.
func (n *node) seen(msg string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.lines[msg]
}

func (n *node) clientAddr() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.addr
}

func (n *node) adminAddr() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.admin
}

func (n *node) term() float64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.leadTerm
}

func (n *node) running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.exited == nil {
		return false
	}
	select {
	case <-n.exited:
		return false
	default:
		return true
	}
}

// kill SIGKILLs the process and waits for it to be gone.
func (n *node) kill() {
	n.mu.Lock()
	cmd, exited := n.cmd, n.exited
	n.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGCONT) // a stopped process dies too, but be sure
	_ = cmd.Process.Kill()
	<-exited
}

func (n *node) signal(sig syscall.Signal) error {
	n.mu.Lock()
	cmd := n.cmd
	n.mu.Unlock()
	return cmd.Process.Signal(sig)
}

// setFaults writes the failpoint control file and, when the process runs,
// waits until it has read it.
func (n *node) setFaults(lines ...string) error {
	n.mu.Lock()
	n.ctlGen++
	gen := n.ctlGen
	n.faults = lines
	n.mu.Unlock()
	body := fmt.Sprintf("gen %d\n", gen)
	for _, l := range lines {
		body += l + "\n"
	}
	tmp := n.ctl + ".tmp"
	if err := os.WriteFile(tmp, []byte(body), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, n.ctl); err != nil {
		return err
	}
	if !n.running() {
		return nil // read at the next start
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(n.ctl + ".ack"); err == nil {
			if got, _ := strconv.Atoi(string(b)); got >= gen {
				return nil
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("%s did not read its failpoints (gen %d) within 10s", n.id, gen)
}

// newNode prepares (does not start) a node with its files under root.
func newNode(root, id, bin string, cluster bool, args ...string) (*node, error) {
	dir := filepath.Join(root, id, "data")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	n := &node{id: id, bin: bin, dir: dir, cluster: cluster,
		ctl: filepath.Join(root, id, "failpoints"), logPath: filepath.Join(root, id, "stalkd.log")}
	n.args = append([]string{"-l", "127.0.0.1", "-p", "0", "-b", dir, "--admin", "127.0.0.1:0"}, args...)
	return n, os.WriteFile(n.ctl, []byte("gen 0\n"), 0o600)
}
