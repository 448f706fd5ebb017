package jobs

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// t0 is the fixtures' start time: an arbitrary Unix-epoch instant.
const t0 = int64(1_700_000_000) * int64(time.Second)

// fixture is a queue on a manual clock, with helpers that fail the test on
// an unexpected error. Time moves only through advance, which also ticks.
type fixture struct {
	t     *testing.T
	clock *ManualClock
	q     *Queue
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	clk := NewManualClock(t0)
	return &fixture{t: t, clock: clk, q: New(Config{Clock: clk})}
}

// advance moves the clock by d and fires what came due.
func (f *fixture) advance(d time.Duration) {
	f.clock.Advance(d)
	f.q.Tick()
}

// wakeCounter is a session's wake function that counts its calls.
type wakeCounter struct{ n int }

func (w *wakeCounter) wake() { w.n++ }

// session opens a session whose wakes are counted.
func (f *fixture) session() (*Session, *wakeCounter) {
	w := &wakeCounter{}
	return f.q.NewSession(w.wake), w
}

// put adds a job with the given priority and delay (TTR 10 s) and returns
// its id; the body is "job<id>".
func (f *fixture) put(s *Session, pri uint32, delay time.Duration) uint64 {
	f.t.Helper()
	return f.putTTR(s, pri, delay, 10*time.Second)
}

func (f *fixture) putTTR(s *Session, pri uint32, delay, ttr time.Duration) uint64 {
	f.t.Helper()
	id := f.q.NextID()
	got, _, err := s.Put(PutRequest{ID: id, Pri: pri, Delay: delay, TTR: ttr, Owned: bodyOf(id)})
	require.NoError(f.t, err)
	require.Equal(f.t, id, got)
	return id
}

func bodyOf(id uint64) []byte { return fmt.Appendf(nil, "job%d", id) }

// reserve reserves without waiting and returns the job's id, checking its body.
func (f *fixture) reserve(s *Session) uint64 {
	f.t.Helper()
	d, err := s.Reserve(0)
	require.NoError(f.t, err)
	require.Equal(f.t, string(bodyOf(d.ID)), string(d.Body()))
	return d.ID
}

// reserveIDs reserves n jobs without waiting and returns their ids in order.
func (f *fixture) reserveIDs(s *Session, n int) []uint64 {
	f.t.Helper()
	ids := make([]uint64, 0, n)
	for range n {
		ids = append(ids, f.reserve(s))
	}
	return ids
}

// state returns the job's state, or 0 if it does not exist.
func (f *fixture) state(id uint64) State {
	f.t.Helper()
	js, err := f.q.StatsJob(id)
	if err != nil {
		require.ErrorIs(f.t, err, ErrNotFound)
		return 0
	}
	return js.State
}

func (f *fixture) jobStats(id uint64) JobStats {
	f.t.Helper()
	js, err := f.q.StatsJob(id)
	require.NoError(f.t, err)
	return js
}

func (f *fixture) tubeStats(name string) TubeStats {
	f.t.Helper()
	ts, err := f.q.StatsTube([]byte(name))
	require.NoError(f.t, err)
	return ts
}

// use makes s use name; watch adds name to its watch list; ignore drops it.
func (f *fixture) use(s *Session, name string) {
	f.t.Helper()
	require.NoError(f.t, s.Use([]byte(name)))
}

func (f *fixture) watch(s *Session, names ...string) {
	f.t.Helper()
	for _, n := range names {
		_, err := s.Watch([]byte(n))
		require.NoError(f.t, err)
	}
}

func (f *fixture) ignore(s *Session, names ...string) {
	f.t.Helper()
	for _, n := range names {
		_, err := s.Ignore([]byte(n))
		require.NoError(f.t, err)
	}
}

// waitFor starts a waiting reserve on s.
func (f *fixture) waitFor(s *Session, timeout time.Duration) {
	f.t.Helper()
	_, err := s.Reserve(timeout)
	require.ErrorIs(f.t, err, ErrWaiting)
	require.True(f.t, s.Waiting())
}

// outcome takes the outcome of a finished wait: the job's id, or 0 and the error.
func (f *fixture) outcome(s *Session) (uint64, error) {
	f.t.Helper()
	d, err := s.TakeOutcome()
	require.NotErrorIs(f.t, err, ErrWaiting, "no outcome yet")
	return d.ID, err
}

// found returns the id found by a peek, or 0 for ErrNotFound.
func (f *fixture) found(d JobData, err error) uint64 {
	f.t.Helper()
	if err != nil {
		require.ErrorIs(f.t, err, ErrNotFound)
		return 0
	}
	require.Equal(f.t, string(bodyOf(d.ID)), string(d.Body()))
	return d.ID
}
