package enginetest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Member is one stalkd cluster member run as a process (the Build binary)
// by a test, restartable on its directory. Its log is read as it comes:
// the client, TLS and admin addresses, whether and in which term it leads,
// the snapshots it installed.
//
// Concurrency: the fields are set before Start and not changed while it
// runs (Start may change Peers' view between runs); the methods are safe
// for concurrent use.
type Member struct {
	ID, RaftAddr, Dir string
	Extra             []string  // more flags
	Peers             []*Member // --raft-peers; nil: all of Start's
	NoPeers           bool      // no --raft-peers: a node to be added
	PeerSpec          string    // --raft-peers as given (this node's view); "" builds it from Peers

	mu        sync.Mutex
	cmd       *exec.Cmd
	addr      string  // client address, after "listening" (the TLS one with -l none)
	tlsAddr   string  // with --tls
	adminAddr string  // with --admin, once it started
	leadTerm  float64 // term of its latest "leading" line; 0 when not leading
	snapshots int     // snapshots installed from a leader, over every run
	logs      []string
}

// NewMember makes a member (not started) with a free raft address and a
// fresh directory.
func NewMember(t testing.TB, id string, extra ...string) *Member {
	return &Member{ID: id, RaftAddr: FreeAddr(t), Dir: ShmDir(t), Extra: extra}
}

// StartCluster starts n members n1..nN, each with extra flags, that
// bootstrap together.
func StartCluster(t testing.TB, n int, extra ...string) []*Member {
	var ms []*Member
	for i := range n {
		ms = append(ms, NewMember(t, fmt.Sprintf("n%d", i+1), extra...))
	}
	for _, m := range ms {
		m.Start(t, ms)
	}
	return ms
}

// Start runs the member (again) and returns once its first client port
// listens. all is the cluster its --raft-peers names (unless Peers,
// NoPeers or PeerSpec say otherwise). The process is killed when the test
// ends; its last log lines are logged if the test failed.
func (p *Member) Start(t testing.TB, all []*Member) {
	t.Helper()
	var peers []string
	if p.Peers != nil {
		all = p.Peers
	}
	for _, o := range all {
		peers = append(peers, o.ID+"="+o.RaftAddr)
	}
	args := []string{"-l", "127.0.0.1", "-p", "0", "-b", p.Dir, "--raft-id", p.ID, "--raft-addr", p.RaftAddr}
	switch {
	case p.PeerSpec != "":
		args = append(args, "--raft-peers", p.PeerSpec)
	case !p.NoPeers:
		args = append(args, "--raft-peers", strings.Join(peers, ","))
	}
	cmd := exec.Command(Build(t), append(args, p.Extra...)...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	p.mu.Lock()
	p.cmd, p.leadTerm, p.adminAddr, p.tlsAddr = cmd, 0, "", ""
	p.logs = nil // this run's lines only
	p.mu.Unlock()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			p.mu.Lock()
			t.Logf("%s log (last lines):\n%s", p.ID, strings.Join(p.logs, "\n"))
			p.mu.Unlock()
		}
	})
	addr := make(chan string, 1)
	go p.read(bufio.NewScanner(stderr), addr)
	select {
	case a, ok := <-addr:
		require.True(t, ok, "%s exited before listening", p.ID)
		p.mu.Lock()
		p.addr = a
		p.mu.Unlock()
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not start", p.ID)
	}
}

// read follows the log: each line is kept (the last 200 to 300) and what
// it says is noted; the first client port's address goes to addr.
func (p *Member) read(sc *bufio.Scanner, addr chan<- string) {
	for sc.Scan() {
		var line struct {
			Message, Addr, Component, Listener string
			Term                               float64
		}
		p.mu.Lock()
		if json.Unmarshal(sc.Bytes(), &line) == nil {
			switch {
			case line.Message == "listening" && line.Component == "cluster":
				if line.Listener == "tls" {
					p.tlsAddr = line.Addr
				}
				select { // the first listener is ready: the process is up
				case addr <- line.Addr:
				default:
				}
			case line.Message == "admin listener started":
				p.adminAddr = line.Addr
			case line.Message == "leading: queue restored":
				p.leadTerm = line.Term
			case line.Message == "no longer leading: queue discarded":
				p.leadTerm = 0
			case line.Message == "installed remote snapshot":
				p.snapshots++
			}
		}
		p.logs = append(p.logs, sc.Text())
		if len(p.logs) > 300 {
			p.logs = p.logs[len(p.logs)-200:]
		}
		p.mu.Unlock()
	}
	close(addr)
}

// Kill kills the process (SIGKILL) and waits for it.
func (p *Member) Kill(t testing.TB) {
	p.mu.Lock()
	cmd := p.cmd
	p.leadTerm = 0
	p.mu.Unlock()
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
}

// Signal sends sig to the process.
func (p *Member) Signal(sig os.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd.Process.Signal(sig)
}

// Running reports whether the member was started.
func (p *Member) Running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd != nil
}

// Addr is the first client port's address (the plain one unless -l none).
func (p *Member) Addr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addr
}

// Term is the term it last said it leads in; 0 when not leading.
func (p *Member) Term() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.leadTerm
}

// Snapshots counts the snapshots it installed from a leader, over every
// run.
func (p *Member) Snapshots() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.snapshots
}
