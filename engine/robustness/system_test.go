package robustness

import (
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// system is what the clients talk to: one node with -b, or three cluster
// members with node TLS whose raft links each run through a FaultProxy
// (an enginetest.FaultMesh), as cmd/stalkd's fault tests arrange it: each
// node's --raft-peers names itself at its real raft address and each peer
// at the proxy of its link to that peer.
type system struct {
	cluster bool
	nodes   []*node
	mesh    *enginetest.FaultMesh

	mu       sync.Mutex
	restores []time.Time // when a node was seen rebuilding its queue from its log
}

// restored notes that a node rebuilt its queue (node.restored).
func (s *system) restored(at time.Time) {
	s.mu.Lock()
	s.restores = append(s.restores, at)
	s.mu.Unlock()
}

// restoresSince returns the restores seen since t.
func (s *system) restoresSince(t time.Time) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []time.Time
	for _, r := range s.restores {
		if r.After(t) {
			out = append(out, r)
		}
	}
	return out
}

// raftTimeout is the cluster's --raft-timeout: above the default, for a
// shared 2-core machine where 300 ms makes even an idle cluster re-elect.
const raftTimeout = "1s"

func startSingle(t testing.TB, root, bin string) (*system, error) {
	n, err := newNode(root, "single", bin, false, "-f", "0")
	if err != nil {
		return nil, err
	}
	s := &system{nodes: []*node{n}}
	n.restored = s.restored
	t.Cleanup(s.stop)
	return s, n.start()
}

// startCluster starts three nodes with node TLS, a fault proxy on every
// raft link, and env added to each process's environment.
func startCluster(t testing.TB, root, bin string, env ...string) (*system, error) {
	ca := enginetest.NewCA(t, "robustness-ca")
	s := &system{cluster: true}
	t.Cleanup(s.stop)
	raftAddrs := make([]string, 3)
	for i := range 3 {
		raftAddrs[i] = enginetest.FreeAddr(t)
	}
	s.mesh = enginetest.NewFaultMesh(t, raftAddrs)
	for i := range 3 {
		id := fmt.Sprintf("n%d", i+1)
		cert, key, _ := ca.Issue(t, id)
		var view []string
		for j := range 3 {
			view = append(view, fmt.Sprintf("n%d=%s", j+1, s.mesh.Addr(i, j)))
		}
		n, err := newNode(root, id, bin, true, "--raft-id", id, "--raft-addr", raftAddrs[i],
			"--raft-peers", strings.Join(view, ","), "--raft-timeout", raftTimeout,
			"--raft-tls-cert", cert, "--raft-tls-key", key, "--raft-tls-ca", ca.CAFile)
		if err != nil {
			return nil, err
		}
		n.restored, n.env = s.restored, env
		s.nodes = append(s.nodes, n)
	}
	for _, n := range s.nodes {
		if err := n.start(); err != nil {
			return s, err
		}
	}
	_, err := s.waitLeader(60 * time.Second)
	return s, err
}

func (s *system) stop() {
	for _, n := range s.nodes {
		n.kill()
	}
}

// leader returns the running node that leads in the highest term, or -1.
func (s *system) leader() int {
	best, term := -1, 0.0
	for i, n := range s.nodes {
		if tm := n.term(); tm > term && n.running() {
			best, term = i, tm
		}
	}
	return best
}

func (s *system) waitLeader(within time.Duration) (int, error) {
	if !s.cluster {
		return 0, nil
	}
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if l := s.leader(); l >= 0 {
			return l, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return -1, fmt.Errorf("no leader within %v", within)
}

// serving waits until a put is acknowledged through every running node
// (and deletes it), or fails after within.
func (s *system) serving(within time.Duration) error {
	deadline := time.Now().Add(within)
	for _, n := range s.nodes {
		if !n.running() {
			continue
		}
		for {
			if err := probePut(n.clientAddr()); err == nil {
				break
			} else if time.Now().After(deadline) {
				return fmt.Errorf("%s does not serve puts %v after the fault: %v", n.id, within, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nil
}

// probePut puts a job into a tube of its own and deletes it.
func probePut(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(12 * time.Second))
	if _, err := c.Write([]byte("use robustness-probe\r\nput 0 0 60 5\r\nprobe\r\n")); err != nil {
		return err
	}
	buf := make([]byte, 256)
	got := ""
	for strings.Count(got, "\r\n") < 2 {
		k, err := c.Read(buf)
		if err != nil {
			return err
		}
		got += string(buf[:k])
	}
	lines := strings.Split(got, "\r\n")
	var id uint64
	if _, err := fmt.Sscanf(lines[1], "INSERTED %d", &id); err != nil {
		return fmt.Errorf("probe put: %q", lines[1])
	}
	_, _ = fmt.Fprintf(c, "delete %d\r\n", id)
	_, _ = c.Read(buf)
	return nil
}

// heal lets every raft link pass again (a cluster's).
func (s *system) heal() {
	if s.cluster {
		s.mesh.Heal()
	}
}

// snapshotsInstalled counts remote snapshots installed: after one, that
// node dials its peers at the leader's view, bypassing the proxies.
func (s *system) snapshotsInstalled() int {
	k := 0
	for _, n := range s.nodes {
		n.mu.Lock()
		k += n.snapshots
		n.mu.Unlock()
	}
	return k
}
