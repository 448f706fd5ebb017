package loadgen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Server is a server process started from a command template. Its fields are
// set by StartServer and read-only afterwards; Stop may be called once, from
// any goroutine.
type Server struct {
	Addr string // 127.0.0.1:port it was told to listen on
	PID  int
	Dir  string // the fresh directory that replaced {dir}, removed by Stop ("" if none)
	cmd  *exec.Cmd
	done chan error
	// others are the rest of a cluster (see clusterVia), stopped with it.
	others []*Server
}

// StartServer picks a free loopback port, substitutes it for every {port} in
// template (and a fresh empty directory for every {dir}, for a journal that
// must not outlive the run), and runs the result with `sh -c "exec …"` (so PID is the server
// itself). Its output goes to logs (discarded if nil). It returns once the
// port accepts connections, or fails after 10 s or if the process exits.
// The process gets SIGKILL if the generator dies first. A template that
// starts with "cluster:leader " or "cluster:follower " starts a three-node
// cluster instead (see clusterVia).
func StartServer(template string, logs io.Writer) (*Server, error) {
	if via, node, ok := clusterVia(template); ok {
		return startCluster(via, node, logs)
	}
	if !strings.Contains(template, "{port}") {
		return nil, fmt.Errorf("loadgen: server template %q has no {port}", template)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	var dir string
	if strings.Contains(template, "{dir}") {
		if dir, err = os.MkdirTemp("", "stalkd-bench-"); err != nil {
			return nil, err
		}
		template = strings.ReplaceAll(template, "{dir}", dir)
	}
	cmd := exec.Command("/bin/sh", "-c", "exec "+strings.ReplaceAll(template, "{port}", strconv.Itoa(port)))
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		if dir != "" {
			os.RemoveAll(dir)
		}
		return nil, err
	}
	s := &Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), PID: cmd.Process.Pid, Dir: dir,
		cmd: cmd, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()
	if err := s.waitReady(10 * time.Second); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) waitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.done <- err
			return fmt.Errorf("loadgen: server exited before listening: %v", err)
		default:
		}
		if c, err := net.DialTimeout("tcp", s.Addr, time.Second); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("loadgen: server did not listen on %s within %v", s.Addr, limit)
}

// Stop sends SIGTERM, then SIGKILL after 3 s, waits for the exit and
// removes the {dir} directory; a cluster's node stops the others first.
func (s *Server) Stop() error {
	var wg sync.WaitGroup
	for _, o := range s.others {
		wg.Go(func() { o.Stop() })
	}
	defer wg.Wait()
	s.others = nil
	if s.Dir != "" {
		defer os.RemoveAll(s.Dir)
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		return nil
	case <-time.After(3 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		return errors.New("loadgen: server ignored SIGTERM; killed")
	}
}

// RSS returns the server's resident set size in bytes.
func (s *Server) RSS() (int64, error) { return ReadRSS(s.PID) }

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// ReadRSS reads VmRSS of process pid from /proc/pid/status, in bytes.
func ReadRSS(pid int) (int64, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseRSS(f)
}

// parseRSS finds "VmRSS:  N kB" in a /proc status file.
func parseRSS(r io.Reader) (int64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		v, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmRSS:"))
		if !ok {
			continue
		}
		f := strings.Fields(string(v))
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("loadgen: odd VmRSS line %q", sc.Text())
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		return kb << 10, err
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("loadgen: no VmRSS in status")
}

// RaiseFDLimit raises this process's open-file soft limit to at least want
// (up to the hard limit) and returns the limit now in force. Servers started
// afterwards inherit it.
func RaiseFDLimit(want uint64) (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	if lim.Cur >= want {
		return lim.Cur, nil
	}
	lim.Cur = min(want, lim.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	return lim.Cur, nil
}
