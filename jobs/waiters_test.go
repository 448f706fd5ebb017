package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPutSatisfiesAWaiter(t *testing.T) {
	f := newFixture(t)
	c, w := f.session()
	f.waitFor(c, -1)
	assert.Equal(t, int64(1), f.q.Stats().Waiting)
	assert.Equal(t, int64(1), f.tubeStats("default").Waiting)
	_, err := c.TakeOutcome()
	assert.ErrorIs(t, err, ErrWaiting, "nothing yet")

	p, _ := f.session()
	id := f.put(p, 0, 0)
	assert.Equal(t, 1, w.n)
	got, err := f.outcome(c)
	require.NoError(t, err)
	assert.Equal(t, id, got)
	assert.False(t, c.Waiting())
	_, err = c.TakeOutcome()
	assert.ErrorIs(t, err, ErrWaiting, "an outcome is taken once")
	js := f.jobStats(id)
	assert.Equal(t, Reserved, js.State)
	assert.Equal(t, uint32(1), js.Reserves)
	st := f.q.Stats()
	assert.Zero(t, st.Waiting)
	assert.Zero(t, st.Ready)
	assert.Equal(t, int64(1), st.Reserved)
	assert.Zero(t, f.tubeStats("default").Waiting)

	f.advance(time.Hour)
	assert.Equal(t, 1, w.n, "woken exactly once")
}

// The reference serves waiters round-robin from a set with swap-remove:
// four waiters get jobs in the order w1, w2, w4, w3.
func TestWaiterOrder(t *testing.T) {
	f := newFixture(t)
	ws := make([]*Session, 4)
	for i := range ws {
		ws[i], _ = f.session()
		f.waitFor(ws[i], -1)
	}
	p, _ := f.session()
	got := map[uint64]int{}
	for range ws {
		id := f.put(p, 0, 0)
		for i, s := range ws {
			if !s.Waiting() {
				continue
			}
			if d, err := s.TakeOutcome(); err == nil {
				require.Equal(t, id, d.ID)
				got[id] = i + 1
			}
		}
	}
	var order []int
	for id := uint64(1); id <= 4; id++ {
		order = append(order, got[id])
	}
	assert.Equal(t, []int{1, 2, 4, 3}, order)
}

// A session waiting on several tubes is served once, by the first tube that
// gets a job, and leaves the waiter sets of the others.
func TestWaiterOnSeveralTubesIsServedOnce(t *testing.T) {
	f := newFixture(t)
	c, w := f.session()
	f.watch(c, "a", "b")
	f.waitFor(c, -1)
	for _, n := range []string{"default", "a", "b"} {
		assert.Equal(t, int64(1), f.tubeStats(n).Waiting, n)
	}
	p, _ := f.session()
	f.use(p, "b")
	first := f.put(p, 0, 0)
	f.use(p, "a")
	second := f.put(p, 0, 0)
	assert.Equal(t, 1, w.n)
	got, err := f.outcome(c)
	require.NoError(t, err)
	assert.Equal(t, first, got)
	assert.Equal(t, Ready, f.state(second))
	for _, n := range []string{"default", "a", "b"} {
		assert.Zero(t, f.tubeStats(n).Waiting, n)
	}
	assert.Zero(t, f.q.Stats().Waiting)
}

func TestPauseHoldsJobsFromWaiters(t *testing.T) {
	f := newFixture(t)
	p, _ := f.session()
	f.use(p, "t")
	require.NoError(t, f.q.PauseTube([]byte("t"), 2*time.Second))
	ids := []uint64{f.put(p, 0, 0), f.put(p, 0, 0)}
	c1, w1 := f.session()
	c2, w2 := f.session()
	for _, c := range []*Session{c1, c2} {
		f.watch(c, "t")
		_, err := c.Reserve(0)
		assert.ErrorIs(t, err, ErrTimedOut, "paused")
		f.waitFor(c, -1)
	}
	f.advance(2*time.Second - 1)
	assert.Zero(t, w1.n+w2.n)
	f.advance(1)
	assert.Equal(t, 1, w1.n)
	assert.Equal(t, 1, w2.n)
	g1, err := f.outcome(c1)
	require.NoError(t, err)
	g2, err := f.outcome(c2)
	require.NoError(t, err)
	assert.Equal(t, ids, []uint64{g1, g2})
	ts := f.tubeStats("t")
	assert.Zero(t, ts.Pause)
	assert.Zero(t, ts.PauseLeft)
}

// pause-tube with 0 pauses for one nanosecond: reserve skips the tube until
// the next tick, which hands its jobs to the waiters.
func TestPauseZero(t *testing.T) {
	f := newFixture(t)
	c, w := f.session()
	id := f.put(c, 0, 0)
	require.NoError(t, f.q.PauseTube([]byte("default"), 0))
	ts := f.tubeStats("default")
	assert.Equal(t, time.Nanosecond, ts.Pause)
	assert.Equal(t, uint64(1), ts.Pauses)
	f.waitFor(c, -1)
	f.advance(1)
	require.Equal(t, 1, w.n)
	got, err := f.outcome(c)
	require.NoError(t, err)
	assert.Equal(t, id, got)
}

func TestDelayedJobGoesStraightToAWaiter(t *testing.T) {
	f := newFixture(t)
	c, w := f.session()
	id := f.put(c, 0, 3*time.Second)
	f.waitFor(c, -1)
	f.advance(3*time.Second - 1)
	assert.Zero(t, w.n)
	f.advance(1)
	require.Equal(t, 1, w.n)
	got, err := f.outcome(c)
	require.NoError(t, err)
	assert.Equal(t, id, got)
	assert.Zero(t, f.q.Stats().Ready)
}

// Jobs released, kicked, timed out or given back by a closing session all
// reach a waiting session at once.
func TestEveryWayToReadyServesWaiters(t *testing.T) {
	tests := []struct {
		name string
		act  func(f *fixture, holder *Session, id uint64)
	}{
		{"release", func(f *fixture, h *Session, id uint64) {
			_, err := h.Release(id, 0, 0)
			require.NoError(f.t, err)
		}},
		{"kick", func(f *fixture, h *Session, id uint64) {
			_, err := h.Bury(id, 0)
			require.NoError(f.t, err)
			n, _, err := h.Kick(1)
			require.NoError(f.t, err)
			require.Equal(f.t, 1, n)
		}},
		{"kick-job", func(f *fixture, h *Session, id uint64) {
			_, err := h.Bury(id, 0)
			require.NoError(f.t, err)
			_, err = h.KickJob(id)
			require.NoError(f.t, err)
		}},
		{"ttr", func(f *fixture, h *Session, id uint64) { f.advance(10*time.Second + 1) }},
		{"close", func(f *fixture, h *Session, id uint64) { h.Close() }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			h, _ := f.session()
			id := f.put(h, 0, 0)
			f.reserve(h)
			c, w := f.session()
			f.waitFor(c, -1)
			tc.act(f, h, id)
			require.Equal(t, 1, w.n)
			got, err := f.outcome(c)
			require.NoError(t, err)
			assert.Equal(t, id, got)
			assert.Equal(t, uint32(2), f.jobStats(id).Reserves)
		})
	}
}

// A job handed to a session that closes before taking it goes to the next
// waiter.
func TestCloseWithAHandedJob(t *testing.T) {
	f := newFixture(t)
	c1, w1 := f.session()
	c2, w2 := f.session()
	f.waitFor(c1, -1)
	f.waitFor(c2, -1)
	id := f.put(c1, 0, 0)
	require.Equal(t, 1, w1.n)
	c1.Close()
	assert.Equal(t, 1, w2.n)
	got, err := f.outcome(c2)
	require.NoError(t, err)
	assert.Equal(t, id, got)
	st := f.q.Stats()
	assert.Equal(t, int64(1), st.Reserved)
	assert.Zero(t, st.Waiting)
}

// Pauses ending in the same tick are served oldest tube first, whatever
// timer shard each tube's timer sits in.
func TestSimultaneousUnpausesServeOldestTubeFirst(t *testing.T) {
	f := newFixture(t)
	p, _ := f.session()
	f.watch(p, "a", "b", "c") // serials 2, 3, 4
	var ids []uint64
	for _, n := range []string{"b", "c"} {
		f.use(p, n)
		ids = append(ids, f.put(p, 0, 0))
		require.NoError(t, f.q.PauseTube([]byte(n), time.Second))
	}
	c, _ := f.session()
	f.watch(c, "c", "b")
	f.waitFor(c, -1)
	f.advance(time.Second)
	got, err := f.outcome(c)
	require.NoError(t, err)
	assert.Equal(t, ids[0], got, "tube b is older than c")
}

// A session's timer that falls due in the same tick as the job ending its
// wait must not end the next wait. The wake function here reacts at once,
// inside the tick - the worst interleaving an event loop on another core
// can produce.
func TestStaleWaitTimerDoesNotEndTheNextWait(t *testing.T) {
	f := newFixture(t)
	p, _ := f.session()
	first := f.put(p, 0, 2*time.Second)
	var s *Session
	var got []uint64
	var errs []error
	s = f.q.NewSession(func() {
		d, err := s.TakeOutcome()
		got, errs = append(got, d.ID), append(errs, err)
		if len(got) == 1 {
			_, err = s.Reserve(-1) // wait again, for ever
			require.ErrorIs(t, err, ErrWaiting)
		}
	})
	f.waitFor(s, 2*time.Second) // times out in the very tick the job comes
	f.advance(2 * time.Second)
	require.Equal(t, []uint64{first}, got)
	require.Equal(t, []error{nil}, errs)
	assert.True(t, s.Waiting(), "the second wait goes on")
	second := f.put(p, 0, 0)
	assert.Equal(t, []uint64{first, second}, got)
	assert.Equal(t, []error{nil, nil}, errs)
}

// Wait timers due in one tick end their waits in (deadline, session) order,
// whatever timer shard each session sits in: the order is observable, since
// each removal from a tube's waiter set moves its last waiter.
func TestWaitTimersFireInDeadlineOrder(t *testing.T) {
	f := newFixture(t)
	ws := make([]*Session, 5) // A B C D E, waiting on default in that order
	for i := range ws {
		ws[i], _ = f.session()
	}
	timeouts := []time.Duration{2 * time.Second, -1, time.Second, -1, -1}
	for i, w := range ws {
		f.waitFor(w, timeouts[i])
	}
	f.advance(2 * time.Second) // C's timer, then A's: [A B C D E] -> [A B E D] -> [D B E]
	for _, i := range []int{0, 2} {
		_, err := f.outcome(ws[i])
		require.ErrorIs(t, err, ErrTimedOut)
	}
	id := f.put(ws[1], 0, 0)
	got, err := f.outcome(ws[3])
	require.NoError(t, err, "D is first in the waiter set")
	assert.Equal(t, id, got)
}
