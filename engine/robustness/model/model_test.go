package model

import (
	"bytes"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hist builds a history: each call adds one operation; at and until are
// its call and return times (until = Never for an outcome not known).
type hist struct{ ops []Op }

func (h *hist) op(s int, at, until int64, in Input, out Output) *hist {
	in.Session = s
	if in.Kind == Reserve && in.Watch == 0 {
		in.Watch = 1
	}
	h.ops = append(h.ops, Op{Client: s, Input: in, Output: out, Call: at, Return: until})
	return h
}

func (h *hist) check(t *testing.T, c Config) Result {
	t.Helper()
	r := Check(c, h.ops, Limits{Within: 10 * time.Second})
	require.NotEqual(t, porcupine.Unknown, r.Verdict, "the check timed out")
	return r
}

func putIn(job int, pri uint32) Input { return Input{Kind: Put, Job: job, Pri: pri} }
func inserted(id uint64) Output       { return Output{Word: Inserted, ID: id} }
func reserved(id uint64, job int) Output {
	return Output{Word: Reserved, ID: id, Job: job}
}
func word(w Word) Output    { return Output{Word: w} }
func unknown() Output       { return Output{Unknown: true} }
func rsv(timeout int) Input { return Input{Kind: Reserve, Timeout: timeout} }

// A correct history with every kind of operation is accepted, and each
// planted violation in a copy of it is caught.
func TestCorrectHistoriesAccepted(t *testing.T) {
	cases := map[string]*hist{
		"put reserve delete": new(hist).
			op(1, 0, 10, putIn(1, 5), inserted(1)).
			op(2, 20, 30, rsv(0), reserved(1, 1)).
			op(2, 40, 50, Input{Kind: Delete, ID: 1}, word(Deleted)).
			op(3, 60, 70, Input{Kind: Peek, ID: 1}, word(NotFound)),
		"priority then id across watched tubes": new(hist).
			op(1, 0, 10, Input{Kind: Put, Job: 1, Pri: 9, Tube: 0}, inserted(1)).
			op(1, 20, 30, Input{Kind: Put, Job: 2, Pri: 1, Tube: 1}, inserted(2)).
			op(1, 40, 50, Input{Kind: Put, Job: 3, Pri: 1, Tube: 1}, inserted(3)).
			op(2, 60, 70, Input{Kind: Reserve, Watch: 0b11}, reserved(2, 2)).
			op(2, 80, 90, Input{Kind: Reserve, Watch: 0b01}, reserved(1, 1)).
			op(2, 100, 110, Input{Kind: Reserve, Watch: 0b11}, reserved(3, 3)),
		"concurrent puts in any order": new(hist).
			op(1, 0, 100, putIn(1, 0), inserted(2)).
			op(2, 0, 100, putIn(2, 0), inserted(1)).
			op(3, 50, 60, rsv(0), reserved(1, 2)),
		"release bury kick touch": new(hist).
			op(1, 0, 10, putIn(1, 0), inserted(1)).
			op(1, 11, 12, putIn(2, 0), inserted(2)).
			op(2, 20, 30, rsv(0), reserved(1, 1)).
			op(2, 31, 32, rsv(0), reserved(2, 2)).
			op(2, 33, 34, Input{Kind: Touch, ID: 2}, word(Touched)).
			op(2, 40, 50, Input{Kind: Bury, ID: 2, Pri: 3}, word(Buried)).
			op(2, 51, 52, Input{Kind: Bury, ID: 1, Pri: 3}, word(Buried)).
			op(3, 53, 54, Input{Kind: PeekBuried}, Output{Word: Found, ID: 2, Job: 2}).
			op(3, 55, 56, Input{Kind: StatsJob, ID: 2}, Output{Word: OK, Stats: &JobStats{State: BuriedState, Pri: 3, Reserves: 1, Buries: 1}}).
			op(3, 60, 70, Input{Kind: Kick, Count: 1}, Output{Word: Kicked, Count: 1}).
			op(3, 71, 72, Input{Kind: PeekReady}, Output{Word: Found, ID: 2, Job: 2}).
			op(2, 80, 90, rsv(0), reserved(2, 2)).
			op(2, 91, 92, Input{Kind: Release, ID: 2, Pri: 7}, word(Released)).
			op(3, 93, 94, Input{Kind: KickJob, ID: 1}, word(Kicked)).
			op(2, 95, 96, rsv(0), reserved(1, 1)).
			op(2, 97, 98, Input{Kind: Release, ID: 9}, word(NotFound)),
		"delayed jobs wait for a kick": new(hist).
			op(1, 0, 10, Input{Kind: Put, Job: 1, Delayed: true}, inserted(1)).
			op(2, 20, 30, rsv(0), word(TimedOut)).
			op(2, 31, 32, Input{Kind: PeekDelayed}, Output{Word: Found, ID: 1, Job: 1}).
			op(2, 40, 50, Input{Kind: Kick, Count: 5}, Output{Word: Kicked, Count: 1}).
			op(2, 60, 70, rsv(0), reserved(1, 1)),
		"a close gives the reserved job back": new(hist).
			op(1, 0, 10, putIn(1, 0), inserted(1)).
			op(2, 20, 30, rsv(0), reserved(1, 1)).
			op(2, 40, Never, Input{Kind: Close}, unknown()).
			op(3, 50, 60, rsv(0), word(TimedOut)). // the close not yet seen
			op(3, 70, 80, rsv(1), reserved(1, 1)),
		"a put of unknown outcome that happened": new(hist).
			op(1, 0, Never, putIn(1, 0), unknown()).
			op(2, 20, 30, rsv(0), reserved(7, 1)).
			op(2, 40, 50, Input{Kind: Delete, ID: 7}, word(Deleted)),
		"a put of unknown outcome that did not": new(hist).
			op(1, 0, Never, putIn(1, 0), unknown()).
			op(2, 20, 30, rsv(0), word(TimedOut)).
			op(2, 40, 50, rsv(0), word(TimedOut)),
		"a reserve of unknown outcome, then its close": new(hist).
			op(1, 0, 10, putIn(1, 0), inserted(1)).
			op(2, 20, Never, rsv(5), unknown()).
			op(2, 30, Never, Input{Kind: Close}, unknown()).
			op(3, 40, 50, rsv(0), word(TimedOut)).
			op(3, 60, 70, rsv(0), reserved(1, 1)),
	}
	for name, h := range cases {
		t.Run(name, func(t *testing.T) {
			r := h.check(t, Config{})
			assert.True(t, r.OK(), "rejected: %v %v", r.Verdict, r.IDs)
		})
	}
}

// TestPlantedViolations: each history breaks one promise, and the checker
// says so.
func TestPlantedViolations(t *testing.T) {
	cases := map[string]*hist{
		"a job reserved twice within its TTR": new(hist).
			op(1, 0, 10, putIn(1, 0), inserted(1)).
			op(2, 20, 30, rsv(0), reserved(1, 1)).
			op(3, 40, 50, rsv(0), reserved(1, 1)),
		"an order inverted (priority)": new(hist).
			op(1, 0, 10, putIn(1, 5), inserted(1)).
			op(1, 20, 30, putIn(2, 1), inserted(2)).
			op(2, 40, 50, rsv(0), reserved(1, 1)),
		"an order inverted (id, same priority)": new(hist).
			op(1, 0, 10, putIn(1, 5), inserted(1)).
			op(1, 20, 30, putIn(2, 5), inserted(2)).
			op(2, 40, 50, rsv(0), reserved(2, 2)),
		"an order inverted (kick, first buried first)": new(hist).
			op(1, 0, 10, putIn(1, 0), inserted(1)).
			op(1, 11, 12, putIn(2, 0), inserted(2)).
			op(2, 20, 30, rsv(0), reserved(1, 1)).
			op(2, 31, 32, rsv(0), reserved(2, 2)).
			op(2, 40, 50, Input{Kind: Bury, ID: 1}, word(Buried)).
			op(2, 51, 52, Input{Kind: Bury, ID: 2}, word(Buried)).
			op(3, 60, 70, Input{Kind: Kick, Count: 1}, Output{Word: Kicked, Count: 1}).
			op(3, 71, 72, Input{Kind: PeekReady}, Output{Word: Found, ID: 2, Job: 2}),
		"a lost put": new(hist).
			op(1, 0, 10, putIn(1, 0), inserted(1)).
			op(2, 20, 30, rsv(0), word(TimedOut)),
		"a lost put (peek)": new(hist).
			op(1, 0, 10, putIn(1, 0), inserted(1)).
			op(2, 20, 30, Input{Kind: Peek, ID: 1}, word(NotFound)),
		"a stale read (peek after delete)": new(hist).
			op(1, 0, 10, putIn(1, 0), inserted(1)).
			op(1, 20, 30, Input{Kind: Delete, ID: 1}, word(Deleted)).
			op(2, 40, 50, Input{Kind: Peek, ID: 1}, Output{Word: Found, ID: 1, Job: 1}),
		"a stale read (stats-job before a bury)": new(hist).
			op(1, 0, 10, putIn(1, 0), inserted(1)).
			op(2, 11, 12, rsv(0), reserved(1, 1)).
			op(2, 20, 30, Input{Kind: Bury, ID: 1}, word(Buried)).
			op(3, 40, 50, Input{Kind: StatsJob, ID: 1}, Output{Word: OK, Stats: &JobStats{State: ReservedState, Reserves: 1}}),
		"a deleted job back": new(hist).
			op(1, 0, 10, putIn(1, 0), inserted(1)).
			op(1, 20, 30, Input{Kind: Delete, ID: 1}, word(Deleted)).
			op(2, 40, 50, rsv(0), reserved(1, 1)),
		"a job reserved twice around an unknown put": new(hist).
			op(1, 0, Never, putIn(1, 0), unknown()).
			op(2, 20, 30, rsv(0), reserved(4, 1)).
			op(3, 40, 50, rsv(0), reserved(4, 1)),
		"a release of another's job": new(hist).
			op(1, 0, 10, putIn(1, 0), inserted(1)).
			op(2, 20, 30, rsv(0), reserved(1, 1)).
			op(3, 40, 50, Input{Kind: Release, ID: 1}, word(Released)),
		"TIMED_OUT with a ready job in another watched tube": new(hist).
			op(1, 0, 10, Input{Kind: Put, Job: 1, Tube: 1}, inserted(1)).
			op(2, 20, 30, Input{Kind: Reserve, Watch: 0b10}, word(TimedOut)),
		"a job served from a tube not watched": new(hist).
			op(1, 0, 10, Input{Kind: Put, Job: 1, Tube: 1}, inserted(1)).
			op(2, 20, 30, Input{Kind: Reserve, Watch: 0b01}, reserved(1, 1)),
	}
	for name, h := range cases {
		t.Run(name, func(t *testing.T) {
			r := h.check(t, Config{})
			assert.Equal(t, porcupine.Illegal, r.Verdict, "not caught")
			assert.False(t, r.OK())
			var b bytes.Buffer
			require.NoError(t, r.Visualize(&b))
			assert.Contains(t, b.String(), "<html")
		})
	}
}

// TestIDViolations: an id acknowledged twice, and ids that go back in
// real time, across groups.
func TestIDViolations(t *testing.T) {
	twice := new(hist).
		op(1, 0, 10, Input{Kind: Put, Job: 1, Group: 0}, inserted(4)).
		op(2, 20, 30, Input{Kind: Put, Job: 2, Group: 1}, inserted(4))
	r := twice.check(t, Config{})
	assert.Equal(t, porcupine.Ok, r.Verdict, "each group alone is fine")
	assert.Len(t, r.IDs, 2)
	back := new(hist).
		op(1, 0, 10, Input{Kind: Put, Job: 1, Group: 0}, inserted(9)).
		op(2, 20, 30, Input{Kind: Put, Job: 2, Group: 1}, inserted(5))
	assert.Len(t, back.check(t, Config{}).IDs, 1)
	concurrent := new(hist).
		op(1, 0, 30, Input{Kind: Put, Job: 1, Group: 0}, inserted(9)).
		op(2, 20, 40, Input{Kind: Put, Job: 2, Group: 1}, inserted(5))
	assert.True(t, concurrent.check(t, Config{}).OK(), "concurrent puts may take ids in any order")
}

// TestClusterOrphans: in a cluster a closed connection's job may stay
// reserved by nobody, and another connection may finish it; a second
// reserve is still a violation.
func TestClusterOrphans(t *testing.T) {
	orphan := new(hist).
		op(1, 0, 10, putIn(1, 0), inserted(1)).
		op(2, 20, 30, rsv(0), reserved(1, 1)).
		op(2, 40, Never, Input{Kind: Close}, unknown()).
		op(3, 50, 60, rsv(0), word(TimedOut)).
		op(3, 70, 80, Input{Kind: Release, ID: 1}, word(Released)) // adopted
	assert.True(t, orphan.check(t, Config{Cluster: true}).OK())
	assert.False(t, orphan.check(t, Config{}).OK(), "a single node has no orphans")
	twice := new(hist).
		op(1, 0, 10, putIn(1, 0), inserted(1)).
		op(2, 20, 30, rsv(0), reserved(1, 1)).
		op(3, 40, 50, rsv(0), reserved(1, 1))
	assert.False(t, twice.check(t, Config{Cluster: true}).OK())
}

// TestGroupsApart: a violation in one group is found among many correct
// ones, and groups do not see each other's jobs.
func TestGroupsApart(t *testing.T) {
	h := new(hist)
	for g := range 8 {
		base := int64(g * 1000)
		h.op(g*10+1, base, base+10, Input{Kind: Put, Group: g, Job: g, Pri: 1}, inserted(uint64(g+1)))
		h.op(g*10+2, base+20, base+30, Input{Kind: Reserve, Group: g, Watch: 1, Timeout: 0}, reserved(uint64(g+1), g))
	}
	require.True(t, h.check(t, Config{}).OK())
	h.op(99, 9000, 9010, Input{Kind: Reserve, Group: 3, Watch: 1}, reserved(4, 3))
	assert.False(t, h.check(t, Config{}).OK())
}

// TestManyUnknownPutsStayCheap: puts whose outcome is unknown (a dead
// journal, a killed server) add jobs that may not exist, one state for
// all of them: a history with dozens of them checks at once, and a later
// reply still settles each.
func TestManyUnknownPutsStayCheap(t *testing.T) {
	h := new(hist)
	at := int64(0)
	for j := 1; j <= 40; j++ {
		in := putIn(j, uint32(j%3))
		in.Delayed = j%5 == 0
		h.op(100+j, at, Never, in, unknown())
		at += 10
	}
	h.op(1, at, at+5, putIn(99, 0), inserted(500))
	h.op(2, at+10, at+15, rsv(0), reserved(500, 99))
	h.op(2, at+20, at+25, rsv(0), reserved(7, 3)) // one unknown put happened
	h.op(2, at+30, at+35, rsv(0), word(TimedOut))
	h.op(2, at+40, at+45, Input{Kind: Kick, Count: 100}, Output{Word: Kicked, Count: 2})
	h.op(2, at+50, at+55, Input{Kind: PeekReady}, Output{Word: Found, ID: 12, Job: 10})
	r := h.check(t, Config{})
	assert.True(t, r.OK(), "%v\n%s", r.Verdict, r.Explain())
	assert.Less(t, r.States, 64, "40 unknown puts made a state set near 2^40, not a few dozen")

	// A job that may not exist never excuses one that does.
	bad := new(hist).
		op(1, 0, Never, putIn(1, 5), unknown()).
		op(2, 10, 20, putIn(2, 1), inserted(2)).
		op(3, 30, 40, rsv(0), reserved(9, 1))
	assert.False(t, bad.check(t, Config{}).OK())
}

// TestClusterOrphanSettles: a closed connection's job in a cluster is
// ready or an orphan, one state; the first reply that tells settles it.
func TestClusterOrphanSettles(t *testing.T) {
	c := Config{Cluster: true}
	base := func() *hist {
		return new(hist).
			op(1, 0, 10, putIn(1, 0), inserted(1)).
			op(2, 20, 30, rsv(0), reserved(1, 1)).
			op(2, 40, 41, Input{Kind: Close}, unknown())
	}
	assert.True(t, base().op(3, 50, 60, rsv(0), word(TimedOut)).
		op(3, 70, 80, Input{Kind: Release, ID: 1}, word(Released)).
		op(4, 90, 100, rsv(0), reserved(1, 1)).check(t, c).OK(), "an orphan, adopted and released")
	assert.False(t, base().op(3, 50, 60, rsv(0), word(TimedOut)).
		op(4, 70, 80, rsv(0), reserved(1, 1)).check(t, c).OK(), "an orphan served inside its TTR")
	assert.False(t, base().op(3, 50, 60, rsv(0), reserved(1, 1)).
		op(4, 70, 80, Input{Kind: StatsJob, ID: 1}, Output{Word: OK, Stats: &JobStats{State: ReservedState, Reserves: 2}}).
		op(5, 90, 100, rsv(0), reserved(1, 1)).check(t, c).OK(), "ready, then served twice")
	assert.True(t, base().op(3, 50, 60, Input{Kind: StatsJob, ID: 1}, Output{Word: OK, Stats: &JobStats{State: Ready, Reserves: 1}}).
		op(4, 70, 80, rsv(0), reserved(1, 1)).check(t, c).OK(), "ready after the close")
}

// TestRestoreReordersBuried: after a restore the buried jobs may be in id
// order; without one, first buried stays first.
func TestRestoreReordersBuried(t *testing.T) {
	h := func(withRestore bool) *hist {
		x := new(hist).
			op(1, 0, 10, putIn(1, 0), inserted(1)).
			op(1, 11, 12, putIn(2, 0), inserted(2)).
			op(2, 20, 30, rsv(0), reserved(1, 1)).
			op(2, 31, 32, rsv(0), reserved(2, 2)).
			op(2, 40, 50, Input{Kind: Bury, ID: 2}, word(Buried)).
			op(2, 51, 52, Input{Kind: Bury, ID: 1}, word(Buried)).
			op(3, 53, 54, Input{Kind: PeekBuried}, Output{Word: Found, ID: 2, Job: 2})
		if withRestore {
			x.op(9, 55, 60, Input{Kind: Restore}, unknown())
		}
		return x.op(3, 70, 80, Input{Kind: PeekBuried}, Output{Word: Found, ID: 1, Job: 1})
	}
	assert.True(t, h(true).check(t, Config{}).OK())
	assert.False(t, h(false).check(t, Config{}).OK())
}

// TestKickHandsOffToWaiters: a reserve that waits may get the first job a
// concurrent kick moved, though the kick then moved a better one; a
// reserve that does not wait, or a job never kicked, may not.
func TestKickHandsOffToWaiters(t *testing.T) {
	h := func(timeout int) *hist {
		return new(hist).
			op(1, 0, 10, Input{Kind: Put, Job: 1, Pri: 1024, Delayed: true}, inserted(1)).
			op(1, 11, 20, Input{Kind: Put, Job: 2, Pri: 0, Delayed: true}, inserted(2)).
			op(2, 30, 100, rsv(timeout), reserved(1, 1)).
			op(3, 40, 90, Input{Kind: Kick, Count: 5}, Output{Word: Kicked, Count: 2})
	}
	assert.True(t, h(1).check(t, Config{}).OK())
	assert.False(t, h(0).check(t, Config{}).OK())
}

// TestRestoreDropsUnacknowledgedPuts: on a single node a reserve may see a
// put whose write then fails (its reply: OUT_OF_MEMORY, an outcome not
// known); the restart drops it. An acknowledged put never goes, and in a
// cluster (whose reads wait for a commit) neither does an unacknowledged
// one that was seen.
func TestRestoreDropsUnacknowledgedPuts(t *testing.T) {
	seenThenGone := func(ack bool) *hist {
		out := unknown()
		until := Never
		if ack {
			out, until = inserted(7), 20
		}
		return new(hist).
			op(1, 0, until, putIn(1, 0), out).
			op(2, 10, 15, rsv(0), reserved(7, 1)).
			op(3, 30, 40, Input{Kind: Restore}, unknown()).
			op(4, 50, 60, Input{Kind: Peek, ID: 7}, word(NotFound))
	}
	assert.True(t, seenThenGone(false).check(t, Config{}).OK(), "single node, put not acknowledged")
	assert.False(t, seenThenGone(true).check(t, Config{}).OK(), "an acknowledged put went")
	assert.False(t, seenThenGone(false).check(t, Config{Cluster: true}).OK(), "a cluster dropped a job a reserve saw")
}
