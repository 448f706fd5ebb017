package node_test

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

// faultCase is one scenario: hit a node (the leader, or a follower) while
// the load runs, wait for what the fault must cause, hold it, heal, and
// check what the scenario promises besides the common checks.
type faultCase struct {
	name     string
	tls      bool                            // node traffic inside mutual TLS
	follower bool                            // hit a follower, not the leader
	hit      func(t *testing.T, r *faultRun) // the fault
	heal     func(t *testing.T, r *faultRun) // nil: fc.heal
	wait     faultWait                       // what the fault causes before the hold
	hold     time.Duration                   // how long the fault lasts after the wait
	check    func(t *testing.T, r *faultRun) // more checks, after the common ones
}

// faultWait is what a scenario waits for once it hit its node.
type faultWait int

const (
	waitNothing  faultWait = iota
	waitElection           // another node leads in a later term
	waitFailover           // that, and the node hit says it no longer leads
)

// faultRun is one round of a scenario, as it goes.
type faultRun struct {
	fc                *faultCluster
	round, victim     int
	leader            int // the leader before the fault
	oldTerm           float64
	next              int // the new leader (-1 unless waited for)
	hitAt             time.Time
	elected, stepDown time.Duration
	lag               uint64        // a partitioned follower's entries behind, before healing
	all, node         [3]int64      // acknowledged puts by phase, all nodes and through the victim
	catchUp           time.Duration // from healing to every node applying the commit index
}

var faultCases = []faultCase{{
	// The leader is cut off from both followers while its clients keep
	// writing. It must step down, the others elect a new leader, and
	// nothing it acknowledged is lost; after healing it may win a later
	// election (its isolated terms ran ahead), never lead on in its old term.
	name: "leader isolated", hit: isolate, wait: waitFailover, hold: 2 * time.Second,
	check: func(t *testing.T, r *faultRun) {
		if term := r.fc.procs[r.victim].Term(); term != 0 {
			assert.Greater(t, term, r.oldTerm, "the deposed leader leads again in its old term")
		}
		require.Positive(t, r.all[1], "the cluster served during the partition")
	},
}, {
	// A follower is cut off for a few seconds under load and healed; it
	// catches up, and the majority served throughout.
	name: "follower partitioned", follower: true, hit: isolate, hold: 3 * time.Second,
	heal: func(t *testing.T, r *faultRun) {
		r.lag = r.fc.procs[r.leader].Cluster(t).CommitIndex - r.fc.procs[r.victim].Cluster(t).AppliedIndex
		r.fc.mesh.Heal()
	},
	check: func(t *testing.T, r *faultRun) {
		require.Positive(t, r.all[1], "the majority served during the partition")
		require.Positive(t, r.lag, "the partitioned follower fell behind")
	},
}, {
	// The leader is SIGSTOPped until another is elected, then resumed: it
	// must step down without acknowledging a write as leader, and rejoin
	// as a follower. Meanwhile the followers' clients, carried to the
	// paused engine (whose sockets stay open), must move to the new leader
	// once their fronts learn of it.
	name: "leader paused", wait: waitElection, hold: 2 * time.Second,
	hit: func(t *testing.T, r *faultRun) { require.NoError(t, r.fc.procs[r.victim].Signal(syscall.SIGSTOP)) },
	heal: func(t *testing.T, r *faultRun) {
		resumed := time.Now()
		require.NoError(t, r.fc.procs[r.victim].Signal(syscall.SIGCONT))
		r.stepDown = r.fc.waitStepDown(t, r.victim, resumed)
	},
	check: func(t *testing.T, r *faultRun) {
		assert.Equal(t, "follower", r.fc.procs[r.victim].Cluster(t).State)
		assert.Positive(t, r.all[1]-r.node[1], "puts acknowledged through the followers during the pause")
		if term := r.fc.procs[r.victim].Term(); term != 0 {
			assert.Greater(t, term, r.fc.procs[r.next].Term(), "the resumed node leads again, in an old term")
		}
	},
}, {
	// Everything the leader sends to its followers is dropped: they elect
	// another; it hears them but none answers its requests.
	name: "leader's sends dropped", tls: true, wait: waitFailover, hold: 2 * time.Second,
	hit: func(t *testing.T, r *faultRun) { r.fc.mesh.Silence(r.victim, true) },
}, {
	// Everything the followers send to the leader is dropped: its
	// heartbeats arrive, their answers do not; it must step down, and they
	// elect another.
	name: "followers' answers dropped", tls: true, wait: waitFailover, hold: 2 * time.Second,
	hit: func(t *testing.T, r *faultRun) { r.fc.mesh.Silence(r.victim, false) },
}, {
	// Every raft link of the leader gets 400 ms of latency each way (more
	// than the election timeout): its heartbeats come late, the followers
	// elect another, and messages of old terms keep arriving late on both
	// sides. Healed, the cluster serves and every acknowledged change is
	// there.
	name: "slow links", tls: true, wait: waitElection, hold: 3 * time.Second,
	hit: func(t *testing.T, r *faultRun) { r.fc.mesh.Slow(r.victim, 400*time.Millisecond) },
}}

// isolate cuts every link of the node hit.
func isolate(t *testing.T, r *faultRun) { r.fc.mesh.Isolate(r.victim) }

func TestClusterFaults(t *testing.T) {
	rounds := faultRounds(t)
	for _, fc := range faultCases {
		t.Run(fc.name, func(t *testing.T) {
			for round := range rounds {
				runFault(t, fc, round)
			}
		})
	}
}

// runFault runs one round of c on a fresh cluster.
func runFault(t *testing.T, c faultCase, round int) {
	fc := startFaultCluster(t, c.tls)
	leader, term := fc.leader(t)
	r := &faultRun{fc: fc, round: round, victim: leader, leader: leader, oldTerm: term, next: -1}
	if c.follower {
		r.victim = (leader + 1) % 3
	}
	l := fc.startLoad(round)
	time.Sleep(time.Second)
	r.hitAt = time.Now()
	l.phase.Store(1)
	c.hit(t, r)
	switch c.wait {
	case waitFailover:
		r.next, r.elected, r.stepDown = fc.waitFailover(t, r.victim, r.oldTerm, r.hitAt)
	case waitElection:
		r.next, r.elected = fc.waitNewLeader(t, r.victim, r.oldTerm, r.hitAt)
	}
	time.Sleep(c.hold) // the victim's clients keep trying
	healed := time.Now()
	if c.heal != nil {
		c.heal(t, r)
	} else {
		fc.mesh.Heal()
	}
	l.phase.Store(2)
	fc.serving(t)
	time.Sleep(500 * time.Millisecond)
	r.all, r.node = l.end(r.victim)
	r.catchUp = fc.converged(t, healed)
	fc.check(t, r.victim, round)
	if c.check != nil {
		c.check(t, r)
	}
	now, _ := fc.leader(t)
	puts, deletes := fc.tr.Counts()
	next := "-"
	if r.next >= 0 {
		next = fc.procs[r.next].ID
	}
	t.Logf("round %d: %s (%s); new leader %s after %v, stepped down after %v, %d entries behind; leader now %s in term %v (was %v); "+
		"puts acknowledged before/during/after %v (through it %v); all nodes applied the commit index %v after healing; "+
		"%d puts, %d deletes acknowledged, all accounted for",
		round, c.name, fc.procs[r.victim].ID, next, r.elected, r.stepDown, r.lag, fc.procs[now].ID, fc.procs[now].Term(), r.oldTerm,
		r.all, r.node, r.catchUp, puts, deletes)
}
