package main

import (
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fault scenarios: three real processes on loopback (faultCluster),
// a producer and a consumer through every node, one fault per round on a
// fresh cluster. Each round checks, as the kill test does, that every
// acknowledged put is there with its body, that no acknowledged delete
// came back and that no id was acknowledged twice, and that after healing
// every node serves and catches up. STALKD_CHAOS_ROUNDS sets the rounds
// (default 1). The one-way and slow-link scenarios run their node traffic
// inside mutual TLS (--raft-tls-*), the others in plain TCP. See
// wal/raft/README.md, "Fault tests".

// TestClusterFaultLeaderIsolated: the leader is cut off from both
// followers while its clients keep writing. It must step down, the others
// elect a new leader, and nothing it acknowledged is lost.
func TestClusterFaultLeaderIsolated(t *testing.T) {
	rounds := faultRounds(t)
	for round := range rounds {
		fc := startFaultCluster(t, false)
		old, oldTerm := fc.leader(t)
		l := fc.startLoad(round)
		time.Sleep(time.Second)
		cut := time.Now()
		l.phase.Store(1)
		fc.mesh.Isolate(old)
		next, elected, stepDown := fc.waitFailover(t, old, oldTerm, cut)
		time.Sleep(2 * time.Second) // the deposed leader's clients keep trying
		fc.mesh.Heal()
		healed := time.Now()
		l.phase.Store(2)
		fc.serving(t)
		time.Sleep(500 * time.Millisecond)
		all, node := l.end(old)
		catchUp := fc.converged(t, healed)
		fc.check(t, old, round)
		// After healing the deposed leader may win a later election (its
		// isolated terms ran ahead); it must never lead on in its old term.
		if term := fc.procs[old].term(); term != 0 {
			assert.Greater(t, term, oldTerm, "the deposed leader leads again in its old term")
		}
		puts, deletes := fc.tr.counts()
		t.Logf("round %d: leader %s isolated; new leader %s after %v, old stepped down after %v; "+
			"puts acknowledged before/during/after %v (through the isolated node %v); all nodes applied the commit index %v after healing; "+
			"%d puts, %d deletes acknowledged, all accounted for",
			round, fc.procs[old].id, fc.procs[next].id, elected, stepDown, all, node, catchUp, puts, deletes)
		require.Positive(t, all[1], "the cluster served during the partition")
	}
}

// TestClusterFaultFollowerPartitioned: a follower is cut off for a few
// seconds under load and healed; it catches up, and the cluster served
// throughout.
func TestClusterFaultFollowerPartitioned(t *testing.T) {
	rounds := faultRounds(t)
	for round := range rounds {
		fc := startFaultCluster(t, false)
		leader, _ := fc.leader(t)
		f := (leader + 1) % 3
		l := fc.startLoad(round)
		time.Sleep(time.Second)
		l.phase.Store(1)
		fc.mesh.Isolate(f)
		time.Sleep(3 * time.Second)
		lag := getCluster(t, fc.procs[leader]).CommitIndex - getCluster(t, fc.procs[f]).AppliedIndex
		fc.mesh.Heal()
		healed := time.Now()
		l.phase.Store(2)
		catchUp := fc.converged(t, healed)
		fc.serving(t)
		all, node := l.end(f)
		fc.check(t, f, round)
		puts, deletes := fc.tr.counts()
		t.Logf("round %d: follower %s partitioned 3s, %d entries behind; all nodes applied the commit index %v after healing; "+
			"puts acknowledged before/during/after %v (through it %v); %d puts, %d deletes acknowledged, all accounted for",
			round, fc.procs[f].id, lag, catchUp, all, node, puts, deletes)
		require.Positive(t, all[1], "the majority served during the partition")
		require.Positive(t, lag, "the partitioned follower fell behind")
	}
}

// TestClusterFaultLeaderPaused: the leader is SIGSTOPped until another is
// elected, then resumed: it must step down without acknowledging a write
// as leader, and rejoin as a follower. Meanwhile the followers' clients,
// carried to the paused engine, must move to the new leader.
func TestClusterFaultLeaderPaused(t *testing.T) {
	rounds := faultRounds(t)
	for round := range rounds {
		fc := startFaultCluster(t, false)
		old, oldTerm := fc.leader(t)
		l := fc.startLoad(round)
		time.Sleep(time.Second)
		proc := fc.procs[old].cmd.Process
		stopped := time.Now()
		l.phase.Store(1)
		require.NoError(t, proc.Signal(syscall.SIGSTOP))
		next, elected := fc.waitNewLeader(t, old, oldTerm, stopped)
		newTerm := fc.procs[next].term()
		time.Sleep(2 * time.Second)
		resumed := time.Now()
		healed := resumed
		require.NoError(t, proc.Signal(syscall.SIGCONT))
		stepDown := fc.waitStepDown(t, old, resumed)
		l.phase.Store(2)
		fc.serving(t)
		time.Sleep(500 * time.Millisecond)
		all, node := l.end(old)
		catchUp := fc.converged(t, healed)
		fc.check(t, old, round)
		assert.Equal(t, "follower", getCluster(t, fc.procs[old]).State)
		// The followers' fronts moved their clients off the paused engine
		// (whose sockets stay open) once they learnt of the new leader.
		assert.Positive(t, all[1]-node[1], "puts acknowledged through the followers during the pause")
		if term := fc.procs[old].term(); term != 0 {
			assert.Greater(t, term, newTerm, "the resumed node leads again, in an old term")
		}
		puts, deletes := fc.tr.counts()
		t.Logf("round %d: leader %s paused; new leader %s after %v; resumed after %v, stepped down %v after resuming; "+
			"puts acknowledged before/during/after %v (through the paused node %v); all nodes applied the commit index %v after healing; "+
			"%d puts, %d deletes acknowledged, all accounted for",
			round, fc.procs[old].id, fc.procs[next].id, elected, resumed.Sub(stopped), stepDown, all, node, catchUp, puts, deletes)
	}
}

// TestClusterFaultOneWay: first everything the leader sends to its
// followers is dropped (they elect another; it hears them but none answers
// its requests), healed; then everything the followers send to the new
// leader is dropped (its heartbeats arrive, their answers do not: it must
// step down, and they elect another), healed.
func TestClusterFaultOneWay(t *testing.T) {
	rounds := faultRounds(t)
	for round := range rounds {
		fc := startFaultCluster(t, true)
		for phase, out := range []bool{true, false} {
			old, oldTerm := fc.leader(t)
			l := fc.startLoad(2*round + phase)
			time.Sleep(time.Second)
			cut := time.Now()
			l.phase.Store(1)
			fc.mesh.Silence(old, out)
			next, elected, stepDown := fc.waitFailover(t, old, oldTerm, cut)
			time.Sleep(2 * time.Second)
			fc.mesh.Heal()
			healed := time.Now()
			l.phase.Store(2)
			fc.serving(t)
			time.Sleep(500 * time.Millisecond)
			all, node := l.end(old)
			catchUp := fc.converged(t, healed)
			fc.check(t, old, round)
			what := map[bool]string{true: "leader->followers", false: "followers->leader"}[out]
			puts, deletes := fc.tr.counts()
			t.Logf("round %d: %s dropped (leader %s); new leader %s after %v, old stepped down after %v; "+
				"puts acknowledged before/during/after %v (through the old leader %v); all nodes applied the commit index %v after healing; "+
				"%d puts, %d deletes acknowledged, all accounted for",
				round, what, fc.procs[old].id, fc.procs[next].id, elected, stepDown, all, node, catchUp, puts, deletes)
		}
	}
}

// TestClusterFaultSlowLinks: every raft link of the leader gets 400 ms of
// latency each way (more than the election timeout) for three seconds:
// its heartbeats come late, the followers elect another, and messages of
// old terms keep arriving late on both sides. Healed, the cluster serves
// and every acknowledged change is there.
func TestClusterFaultSlowLinks(t *testing.T) {
	rounds := faultRounds(t)
	for round := range rounds {
		fc := startFaultCluster(t, true)
		old, oldTerm := fc.leader(t)
		l := fc.startLoad(round)
		time.Sleep(time.Second)
		slowed := time.Now()
		l.phase.Store(1)
		fc.mesh.Slow(old, 400*time.Millisecond)
		next, elected := fc.waitNewLeader(t, old, oldTerm, slowed)
		time.Sleep(3 * time.Second)
		fc.mesh.Heal()
		healed := time.Now()
		l.phase.Store(2)
		fc.serving(t)
		time.Sleep(500 * time.Millisecond)
		all, node := l.end(old)
		catchUp := fc.converged(t, healed)
		fc.check(t, old, round)
		now, _ := fc.leader(t)
		puts, deletes := fc.tr.counts()
		t.Logf("round %d: leader %s's links slowed by 400ms; new leader %s after %v; leader now %s in term %v (was %v); "+
			"puts acknowledged before/during/after %v (through the slowed node %v); all nodes applied the commit index %v after healing; "+
			"%d puts, %d deletes acknowledged, all accounted for",
			round, fc.procs[old].id, fc.procs[next].id, elected, fc.procs[now].id, fc.procs[now].term(), oldTerm,
			all, node, catchUp, puts, deletes)
	}
}
