package node_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// faultCluster is three cluster members on loopback whose raft traffic
// runs through a FaultProxy per link: links[i][j] carries every connection
// node i dials to node j (i's requests Up, j's answers Down).
//
// How: each node bootstraps with a --raft-peers of its own, naming itself
// at its real raft address and each peer at the proxy of its link to that
// peer. The bootstrap configuration is each node's entry 1 (same term and
// index everywhere), so raft never replaces it and each node keeps dialing
// its own view. Two things would spread the leader's view and bypass the
// proxies: a membership change, and a snapshot installed on a follower;
// the scenarios make neither (a fresh cluster per round, far fewer entries
// than a snapshot needs), and check verifies the second.
// The fronts' client connections to the leader's engine are not proxied:
// a partition here is between raft transports only.
type faultCluster struct {
	procs []*enginetest.Member
	mesh  *enginetest.FaultMesh
	tr    *enginetest.Tracker
}

// startFaultCluster starts the three members; with nodeTLS their node
// traffic runs inside mutual TLS (the proxies carry the TLS bytes, blind).
func startFaultCluster(t *testing.T, nodeTLS bool) *faultCluster {
	fc := &faultCluster{tr: enginetest.NewTracker()}
	if nodeTLS {
		fc.procs = nodeTLSProcs(t, enginetest.NewCA(t, "fault-ca"), 3, "--admin", "127.0.0.1:0")
	} else {
		for i := range 3 {
			fc.procs = append(fc.procs, enginetest.NewMember(t, fmt.Sprintf("n%d", i+1), "--admin", "127.0.0.1:0"))
		}
	}
	var targets []string
	for _, p := range fc.procs {
		targets = append(targets, p.RaftAddr)
	}
	fc.mesh = enginetest.NewFaultMesh(t, targets)
	for i, p := range fc.procs {
		var view []string
		for j, o := range fc.procs {
			view = append(view, o.ID+"="+fc.mesh.Addr(i, j))
		}
		p.PeerSpec = strings.Join(view, ",")
	}
	for _, p := range fc.procs {
		p.Start(t, fc.procs)
	}
	return fc
}

// leader waits for a leader and checks that its raft traffic to its
// followers runs through the proxies of its links (the views took).
func (fc *faultCluster) leader(t *testing.T) (int, float64) {
	t.Helper()
	l := enginetest.WaitLeader(t, fc.procs)
	for j := range fc.procs {
		if j != l {
			link := fc.mesh.Link(l, j)
			require.Eventually(t, func() bool { return link.Stats().Passed[enginetest.Up] > 0 }, 30*time.Second,
				10*time.Millisecond, "%s's raft traffic to %s bypasses the proxy", fc.procs[l].ID, fc.procs[j].ID)
		}
	}
	return l, fc.procs[l].Term()
}

// waitFailover waits until a node other than old leads in a term after
// oldTerm and old says it no longer leads; it returns the new leader and
// the time since since of each.
func (fc *faultCluster) waitFailover(t *testing.T, old int, oldTerm float64, since time.Time) (next int, elected, stepDown time.Duration) {
	t.Helper()
	next = -1
	deadline := time.Now().Add(30 * time.Second)
	for next < 0 || stepDown == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("30s after the fault on %s: new leader %d, old stepped down after %v", fc.procs[old].ID, next, stepDown)
		}
		for i, p := range fc.procs {
			if next < 0 && i != old && p.Term() > oldTerm {
				next, elected = i, time.Since(since)
			}
		}
		if stepDown == 0 && fc.procs[old].Term() == 0 {
			stepDown = time.Since(since)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return next, elected, stepDown
}

// waitNewLeader waits until a node other than old leads in a term after
// oldTerm, and returns it and the time since since.
func (fc *faultCluster) waitNewLeader(t *testing.T, old int, oldTerm float64, since time.Time) (int, time.Duration) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for i, p := range fc.procs {
			if i != old && p.Term() > oldTerm {
				return i, time.Since(since)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no new leader within 30s of the fault on %s", fc.procs[old].ID)
	return -1, 0
}

// waitStepDown waits until node i says it no longer leads, and returns the
// time since since.
func (fc *faultCluster) waitStepDown(t *testing.T, i int, since time.Time) time.Duration {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for fc.procs[i].Term() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s still leads 30s after losing its majority", fc.procs[i].ID)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(since)
}

// serving waits until a put is acknowledged through every node.
func (fc *faultCluster) serving(t *testing.T) {
	for _, p := range fc.procs {
		firstPut(t, p.Addr(), fc.tr, time.Now())
	}
}

// converged waits until every node applied the leader's commit index (the
// partitioned or paused node caught up), and returns the time since healed.
func (fc *faultCluster) converged(t *testing.T, healed time.Time) time.Duration {
	leader := enginetest.WaitLeader(t, fc.procs)
	target := fc.procs[leader].Cluster(t).CommitIndex
	for _, p := range fc.procs {
		enginetest.WaitApplied(t, p, target)
	}
	return time.Since(healed)
}

// check verifies every acknowledged put and delete through node i and node
// i+1 (a follower's front carries to the leader: the same state), and that
// no follower had a snapshot installed (see faultCluster).
func (fc *faultCluster) check(t *testing.T, i, round int) {
	fc.tr.Verify(t, fc.procs[i].Addr(), round)
	fc.tr.Verify(t, fc.procs[(i+1)%3].Addr(), round)
	for _, p := range fc.procs {
		require.Zero(t, p.Snapshots(), "%s installed a leader's snapshot: its peers' addresses are the leader's now", p.ID)
	}
}

// faultLoad is a producer and a consumer per node that reconnect after
// an error until stopped; acks counts acknowledged puts by node and phase.
type faultLoad struct {
	stop  chan struct{}
	wg    sync.WaitGroup
	phase atomic.Int32 // 0 before the fault, 1 during, 2 after
	acks  [3][3]atomic.Int64
}

func (fc *faultCluster) startLoad(round int) *faultLoad {
	l := &faultLoad{stop: make(chan struct{})}
	for i, p := range fc.procs {
		l.wg.Add(2)
		go func() { defer l.wg.Done(); l.produce(p.Addr(), fc.tr, i, fmt.Sprintf("f%d-n%d", round, i)) }()
		go func() {
			defer l.wg.Done()
			for try := uint64(0); !l.stopped(); try++ {
				enginetest.Consume(p.Addr(), fc.tr, l.stop, uint64(round*1000+i*100)+try)
				l.pause()
			}
		}()
	}
	return l
}

func (l *faultLoad) stopped() bool {
	select {
	case <-l.stop:
		return true
	default:
		return false
	}
}

func (l *faultLoad) pause() {
	select {
	case <-l.stop:
	case <-time.After(20 * time.Millisecond):
	}
}

// end stops the load and returns the acknowledged puts by phase (all nodes)
// and through node i.
func (l *faultLoad) end(i int) (all, node [3]int64) {
	close(l.stop)
	l.wg.Wait()
	for ph := range 3 {
		for n := range 3 {
			all[ph] += l.acks[n][ph].Load()
		}
		node[ph] = l.acks[i][ph].Load()
	}
	return all, node
}

// produce puts through addr, reconnecting after an error, until stopped.
func (l *faultLoad) produce(addr string, tr *enginetest.Tracker, node int, name string) {
	for try := 0; !l.stopped(); try++ {
		c, err := enginetest.DialClient(addr)
		if err != nil {
			l.pause()
			continue
		}
		for n := 0; !l.stopped(); n++ {
			body := fmt.Sprintf("%s-%d-%d", name, try, n)
			line, _, err := c.Do(fmt.Sprintf("put %d 0 60 %d\r\n%s\r\n", n%5, len(body), body))
			if err != nil {
				break // this put is in doubt
			}
			id, err := strconv.ParseUint(strings.TrimPrefix(line, "INSERTED "), 10, 64)
			if err != nil {
				continue // INTERNAL_ERROR: not acknowledged
			}
			tr.Put(id, body)
			l.acks[node][l.phase.Load()].Add(1)
		}
		c.Close()
		l.pause()
	}
}

// faultRounds is STALKD_CHAOS_ROUNDS (default 1): rounds per scenario.
func faultRounds(t *testing.T) int {
	if testing.Short() {
		t.Skip("runs three real processes")
	}
	n, err := strconv.Atoi(os.Getenv("STALKD_CHAOS_ROUNDS"))
	if err != nil || n < 1 {
		return 1
	}
	return n
}
