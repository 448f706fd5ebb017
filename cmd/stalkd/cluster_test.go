package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/wal/raft"
)

// TestClusterFlags: the three flags parse in both spellings, and the
// combinations cluster mode cannot run with are refused.
func TestClusterFlags(t *testing.T) {
	o, _, err := parseArgs([]string{"-b", "/d", "--raft-id", "n1", "--raft-addr=127.0.0.1:1", "--raft-peers", "n1=127.0.0.1:1,n2=h:2"}, nil)
	require.NoError(t, err)
	assert.Equal(t, clusterFlags{ID: "n1", Addr: "127.0.0.1:1", Peers: "n1=127.0.0.1:1,n2=h:2"}, o.cluster)
	for _, args := range [][]string{
		{"--raft-id", "n1", "--raft-addr", "h:1"},                                   // no -b
		{"-b", "/d", "--raft-id", "n1"},                                             // no --raft-addr
		{"-b", "/d", "--raft-addr", "h:1"},                                          // no --raft-id
		{"-b", "/d", "--raft-id", "n1", "--raft-addr", "h:1", "--raft-peers", "n1"}, // bad peer
		{"-b", "/d", "--raft-id"},                                                   // no value
		{"--raft-what", "x"},                                                        // unknown
		{"-b", "/d", "--raft-id", "n1", "--raft-addr", "h:1", "-l", "unix:/s"},      // no unix socket
		{"-b", "/d", "--raft-id", "n1", "--raft-addr", "h:1", "--tls", "unix:/s"},   // no unix socket
	} {
		_, _, err := parseArgs(args, nil)
		assert.Error(t, err, "%q", args)
	}
	_, _, err = parseArgs([]string{"-b", "/d", "--raft-id", "n1", "--raft-addr", "h:1",
		"--admin", "127.0.0.1:0", "--idle-timeout", "1m", "--tls", "127.0.0.1:0", "--tls-cert", "c", "--tls-key", "k"}, nil)
	assert.NoError(t, err, "--admin, --tls and --idle-timeout are served in cluster mode")
	o, _, err = parseArgs([]string{"-b", "/d", "--raft-id", "n1", "--raft-addr", "h:1", "--raft-timeout", "1s"}, nil)
	require.NoError(t, err)
	assert.Equal(t, raft.Timing{Heartbeat: time.Second, Election: time.Second, LeaderLease: 500 * time.Millisecond},
		raftTiming(o.cluster.Timeout))
	assert.Equal(t, raft.Timing{}, raftTiming(0), "the defaults")
	for _, args := range [][]string{
		{"-b", "/d", "--raft-id", "n1", "--raft-addr", "h:1", "--raft-timeout", "1ms"},
		{"-b", "/d", "--raft-id", "n1", "--raft-addr", "h:1", "--raft-timeout", "soon"},
		{"--raft-timeout", "1s"}, // no --raft-id
	} {
		_, _, err := parseArgs(args, nil)
		assert.Error(t, err, "%q", args)
	}
	o, _, err = parseArgs([]string{"-p", "1"}, nil)
	require.NoError(t, err)
	assert.Equal(t, clusterFlags{}, o.cluster, "no flags: a single node")
}

// clusterProc is one stalkd cluster member run by the test.
type clusterProc struct {
	id, raftAddr, dir string
	extra             []string       // more flags
	peers             []*clusterProc // --raft-peers; nil: all of start's
	noPeers           bool           // no --raft-peers: a node to be added
	peerSpec          string         // --raft-peers as given (this node's view); "" builds it from peers
	cmd               *exec.Cmd
	addr              string // client address, after "listening" (the TLS one with -l none)
	tlsAddr           string // with --tls
	adminAddr         string // with --admin, once it started
	mu                sync.Mutex
	leadTerm          float64 // term of its latest "leading" line; 0 when not leading
	snapshots         int     // snapshots installed from a leader, over every run
	logs              []string
}

// TestClusterProcesses starts three stalkd processes on loopback, runs
// producers and consumers through every node, SIGKILLs the leader again and
// again, restarts it on its directory, and checks that every acknowledged
// put is there with its body (unless its delete was acknowledged), every
// acknowledged delete stays gone, and ids never repeat. It also times each
// failover: from the kill to the first put acknowledged through a survivor.
func TestClusterProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three real processes")
	}
	procs := startCluster(t, 3)
	tr := newTracker()
	kills := 6
	var failovers []time.Duration
	// One idle connection per node, using a tube of its own: a node's
	// connections survive the leader's death (carried to the next leader,
	// use replayed), except the dead node's own.
	keep := make([]*beanstalkConn, len(procs))
	keepUse := func(i int) {
		c, err := dialBeanstalk(procs[i].addr)
		require.NoError(t, err)
		line, _, err := c.do(fmt.Sprintf("use keep%d\r\n", i))
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("USING keep%d", i), line)
		keep[i] = c
	}
	for i := range procs {
		keepUse(i)
	}
	carried := 0
	for round := range kills {
		leader := waitLeader(t, procs)
		tr.verify(t, procs[(leader+1)%3].addr, round)
		for i, c := range keep {
			if c == nil {
				keepUse(i)
				continue
			}
			line, _, err := c.do("list-tube-used\r\n")
			require.NoError(t, err, "node %s's connection was closed", procs[i].id)
			require.Equal(t, fmt.Sprintf("USING keep%d", i), line)
			if round > 0 {
				carried++ // it lived through the last kill
			}
		}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for i, p := range procs {
			wg.Add(2)
			go func() { defer wg.Done(); produce(p.addr, tr, stop, fmt.Sprintf("r%d-n%d", round, i)) }()
			go func() { defer wg.Done(); consume(p.addr, tr, stop, uint64(round*10+i)) }()
		}
		time.Sleep(time.Duration(200+100*round) * time.Millisecond)
		killed := time.Now()
		procs[leader].kill(t)
		keep[leader].close()
		keep[leader] = nil
		failovers = append(failovers, firstPut(t, procs[(leader+1)%3].addr, tr, killed))
		close(stop)
		wg.Wait()
		procs[leader].start(t, procs)
	}
	leader := waitLeader(t, procs)
	for i := range procs {
		tr.verify(t, procs[i].addr, kills)
	}
	// stats-cluster through a follower: carried to the leader, its view.
	doc := statsClusterDoc(t, procs[(leader+1)%3].addr)
	assert.Contains(t, doc, "\nstate: leader\n")
	assert.Contains(t, doc, "\nleader: "+procs[leader].id+"\n")
	assert.Equal(t, 3, strings.Count(doc, "\n- id: "), doc)
	assert.Contains(t, doc, "\n  voter: true\n")
	puts, deletes := tr.counts()
	slices.Sort(failovers)
	t.Logf("%d leader kills: %d acknowledged puts, %d acknowledged deletes, all accounted for on every node; "+
		"failover (kill to first acknowledged put) p50 %v, max %v; %d idle connections carried across a failover; leader now %s",
		kills, puts, deletes, failovers[len(failovers)/2], failovers[len(failovers)-1], carried, procs[leader].id)
	require.Positive(t, puts)
	require.Positive(t, deletes)
}

// firstPut puts through addr until a put is acknowledged and returns the
// time since killed.
func firstPut(t *testing.T, addr string, tr *tracker, killed time.Time) time.Duration {
	deadline := killed.Add(60 * time.Second)
	for n := 0; time.Now().Before(deadline); n++ {
		c, err := dialBeanstalk(addr)
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		body := fmt.Sprintf("failover-%d", n)
		line, _, err := c.do(fmt.Sprintf("put 0 0 60 %d\r\n%s\r\n", len(body), body))
		c.close()
		if err == nil && strings.HasPrefix(line, "INSERTED ") {
			id, err := strconv.ParseUint(strings.TrimPrefix(line, "INSERTED "), 10, 64)
			require.NoError(t, err)
			tr.put(id, body)
			return time.Since(killed)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no put acknowledged within 60s of the leader's kill")
	return 0
}

func startCluster(t *testing.T, n int) []*clusterProc {
	var procs []*clusterProc
	for i := range n {
		procs = append(procs, &clusterProc{id: fmt.Sprintf("n%d", i+1), raftAddr: freeAddr(t), dir: crashDir(t)})
	}
	for _, p := range procs {
		p.start(t, procs)
	}
	return procs
}

// freeAddr returns a loopback address with a port free a moment ago.
// freeAddr is a loopback address for a node's raft port (see
// enginetest.FreeAddr: never one the nodes' own port-0 binds can take).
func freeAddr(t *testing.T) string { return enginetest.FreeAddr(t) }

func (p *clusterProc) start(t *testing.T, all []*clusterProc) {
	var peers []string
	if p.peers != nil {
		all = p.peers
	}
	for _, o := range all {
		peers = append(peers, o.id+"="+o.raftAddr)
	}
	args := []string{"-l", "127.0.0.1", "-p", "0", "-b", p.dir, "--raft-id", p.id, "--raft-addr", p.raftAddr}
	switch {
	case p.peerSpec != "":
		args = append(args, "--raft-peers", p.peerSpec)
	case !p.noPeers:
		args = append(args, "--raft-peers", strings.Join(peers, ","))
	}
	cmd := exec.Command(os.Args[0], append(args, p.extra...)...)
	cmd.Env = append(os.Environ(), "STALKD_TEST_MAIN=1")
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
			t.Logf("%s log (last lines):\n%s", p.id, strings.Join(p.logs, "\n"))
			p.mu.Unlock()
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line struct {
				Message, Addr, Component, Listener string
				Term                               float64
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil {
				p.mu.Lock()
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
				p.mu.Unlock()
			}
			p.mu.Lock()
			p.logs = append(p.logs, sc.Text())
			if len(p.logs) > 300 {
				p.logs = p.logs[len(p.logs)-200:]
			}
			p.mu.Unlock()
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		require.True(t, ok, "%s exited before listening", p.id)
		p.mu.Lock()
		p.addr = a
		p.mu.Unlock()
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not start", p.id)
	}
}

func (p *clusterProc) kill(t *testing.T) {
	p.mu.Lock()
	cmd := p.cmd
	p.leadTerm = 0
	p.mu.Unlock()
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
}

// waitLeader returns the index of the live process that last said it leads
// with the highest term.
func waitLeader(t *testing.T, procs []*clusterProc) int {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		best, term := -1, 0.0
		for i, p := range procs {
			p.mu.Lock()
			if p.leadTerm > term {
				best, term = i, p.leadTerm
			}
			p.mu.Unlock()
		}
		if best >= 0 {
			return best
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no leader within 60s")
	return -1
}

// TestClusterOneNodeDrain: a cluster of one serves through its front, and
// SIGUSR1 turns drain mode on for the queue it leads.
func TestClusterOneNodeDrain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real process")
	}
	procs := startCluster(t, 1)
	waitLeader(t, procs)
	c, err := dialBeanstalk(procs[0].addr)
	require.NoError(t, err)
	defer c.close()
	line, _, err := c.do("put 0 0 60 2\r\nhi\r\n")
	require.NoError(t, err)
	require.Equal(t, "INSERTED 1", line)
	require.NoError(t, procs[0].cmd.Process.Signal(syscall.SIGUSR1))
	deadline := time.Now().Add(20 * time.Second)
	for {
		line, _, err = c.do("put 0 0 60 2\r\nhi\r\n")
		require.NoError(t, err)
		if line == "DRAINING" || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	assert.Equal(t, "DRAINING", line)
	line, body, err := c.do("peek 1\r\n")
	require.NoError(t, err)
	assert.Equal(t, "FOUND 1 2", line)
	assert.Equal(t, "hi", string(body))
}

// statsClusterDoc returns the stats-cluster document served at addr.
func statsClusterDoc(t *testing.T, addr string) string {
	r := enginetest.Dial(t, addr).Ask("stats-cluster\r\n")
	require.True(t, strings.HasPrefix(r.Head, "OK "), r.Head)
	return string(r.Body)
}

// TestClusterAuth: with --auth-token-file, a cluster member's clients must
// authenticate (the leader's engine checks the tokens; the front carries
// auth like any command).
func TestClusterAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real process")
	}
	const token = "cluster-token-0123456789"
	file := filepath.Join(t.TempDir(), "tokens")
	require.NoError(t, os.WriteFile(file, []byte(token+"\n"), 0o600))
	p := &clusterProc{id: "n1", raftAddr: freeAddr(t), dir: crashDir(t), extra: []string{"--auth-token-file", file}}
	procs := []*clusterProc{p}
	p.start(t, procs)
	waitLeader(t, procs)
	c, err := dialBeanstalk(p.addr)
	require.NoError(t, err)
	defer c.close()
	for _, x := range []struct{ req, want string }{
		{"put 0 0 60 2\r\nhi\r\n", "UNKNOWN_COMMAND"},
		{"auth " + token + "\r\n", "AUTHENTICATED"},
		{"put 0 0 60 2\r\nhi\r\n", "INSERTED 1"},
	} {
		line, _, err := c.do(x.req)
		require.NoError(t, err)
		assert.Equal(t, x.want, line, x.req)
	}
}
