package jobs

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spend reserves job id from s (which must find it next) and releases it,
// which with max_reserves 1 dead-letters it.
func (f *fixture) spend(s *Session, id uint64) {
	f.t.Helper()
	require.Equal(f.t, id, f.reserve(s))
	_, err := s.Release(id, f.jobStats(id).Pri, 0)
	require.NoError(f.t, err)
}

// TestRedriveToOrigins: a dead-letter tube fed by two tubes, holding also a
// job a client put there itself, a buried one, a delayed one and a
// reserved one, is redriven: every job with an origin goes back to it with
// its id, body, priority and TTR, a reserve count of zero and no dead
// letter; a buried one arrives ready, a delayed one stays delayed until
// the same time; the reserved one and the one without an origin stay; the
// counters agree.
func TestRedriveToOrigins(t *testing.T) {
	f, jr := newJournalFixture(t)
	for _, tube := range []string{"a", "b"} {
		require.NoError(t, f.q.SetPolicy(tube, Policy{MaxReserves: 1, DeadLetter: "dead"}))
	}
	s, _ := f.session()
	f.watch(s, "a", "b")
	f.ignore(s, "default")
	f.use(s, "a")
	a1 := f.put(s, 10, 0)
	f.spend(s, a1)
	a2 := f.put(s, 11, 0)
	f.spend(s, a2)
	f.use(s, "b")
	b1 := f.putTTR(s, 12, 0, 30*time.Second)
	f.spend(s, b1)
	b2 := f.put(s, 13, 0)
	f.spend(s, b2)
	b3 := f.put(s, 14, 0)
	f.spend(s, b3)
	f.use(s, "dead")
	plain := f.put(s, 15, 0) // put there by a client: no origin

	// In the dead-letter tube: bury a2, delay b2 by a minute, hold b3.
	w, _ := f.session()
	f.watch(w, "dead")
	f.ignore(w, "default")
	_, _, err := w.ReserveJob(a2)
	require.NoError(t, err)
	_, err = w.Bury(a2, 11)
	require.NoError(t, err)
	_, _, err = w.ReserveJob(b2)
	require.NoError(t, err)
	_, err = w.Release(b2, 13, time.Minute)
	require.NoError(t, err)
	delayedUntil := f.clock.Now() + int64(time.Minute)
	_, _, err = w.ReserveJob(b3)
	require.NoError(t, err)

	f.advance(5 * time.Second)
	before := f.q.Stats()
	jr.take()
	res, err := f.q.Redrive("dead", RedriveRequest{})
	require.NoError(t, err)
	assert.Equal(t, 4, res.Moved)
	assert.Equal(t, map[string]int{"a": 2, "b": 2}, res.ByTube)
	assert.Equal(t, 1, res.NoOrigin, "the job a client put there")
	assert.Equal(t, 1, res.Reserved, "the job a worker holds")
	assert.Equal(t, 1, res.Left, "the job without an origin")
	assert.Zero(t, res.Changed)

	recs := jr.take()
	require.Len(t, recs, 4, "one whole record per moved job")
	assert.Equal(t, recs[3].Kind, RecPut)
	assert.NotZero(t, res.Seq)
	for _, r := range recs {
		assert.Equal(t, RecPut, r.Kind)
		assert.Nil(t, r.Dead)
		assert.Zero(t, r.Reserves)
		assert.Equal(t, string(bodyOf(r.ID)), string(r.Body))
	}

	for id, want := range map[uint64]struct {
		tube  string
		state State
		pri   uint32
	}{a1: {"a", Ready, 10}, a2: {"a", Ready, 11}, b1: {"b", Ready, 12}, b2: {"b", Delayed, 13}} {
		js := f.jobStats(id)
		assert.Equal(t, want.tube, js.Tube, "job %d", id)
		assert.Equal(t, want.state, js.State, "job %d", id)
		assert.Equal(t, want.pri, js.Pri, "job %d", id)
		assert.Zero(t, js.Reserves, "job %d: a fresh reserve count", id)
		_, ok := f.deadLetterOf(id)
		assert.False(t, ok, "job %d: no longer a dead letter", id)
	}
	assert.Equal(t, 30*time.Second, f.jobStats(b1).TTR)
	assert.Equal(t, uint32(1), f.jobStats(a2).Buries, "its history stays")
	assert.Equal(t, time.Duration(delayedUntil-f.clock.Now()), f.jobStats(b2).TimeLeft, "the same time")
	assert.Equal(t, "dead", f.jobStats(plain).Tube)
	assert.Equal(t, "dead", f.jobStats(b3).Tube)

	after := f.q.Stats()
	assert.Equal(t, before.Ready+1, after.Ready, "the buried one arrived ready")
	assert.Equal(t, before.Buried-1, after.Buried)
	assert.Equal(t, before.Delayed, after.Delayed)
	assert.Equal(t, before.Reserved, after.Reserved)
	dead := f.tubeStats("dead")
	assert.Equal(t, int64(1), dead.Ready)
	assert.Equal(t, int64(1), dead.Reserved)
	assert.Equal(t, int64(0), dead.Buried+dead.Delayed)

	// The redriven jobs are reservable from their origins, by id, and obey
	// max_reserves again from zero: dead-lettered anew, with a new record.
	r, _ := f.session()
	f.watch(r, "a")
	f.ignore(r, "default")
	assert.Equal(t, []uint64{a1, a2}, f.reserveIDs(r, 2))
	_, err = r.Release(a1, 10, 0)
	require.NoError(t, err)
	dl, ok := f.deadLetterOf(a1)
	require.True(t, ok)
	assert.Equal(t, DeadLetter{Origin: "a", Reason: DeadReleased, At: f.clock.Now()}, dl)

	// The delayed one comes due in its origin.
	f.advance(time.Minute)
	assert.Equal(t, Ready, f.state(b2))
	assert.Equal(t, "b", f.jobStats(b2).Tube)
}

// TestRedriveToAndMax: with To every job goes there, origin or not; Max
// bounds how many move per call, and repeated calls finish the job.
func TestRedriveToAndMax(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	f.use(s, "dead")
	var ids []uint64
	for i := range 5 {
		ids = append(ids, f.put(s, uint32(i), 0))
	}
	res, err := f.q.Redrive("dead", RedriveRequest{})
	require.NoError(t, err)
	assert.Zero(t, res.Moved, "no job has an origin")
	assert.Equal(t, 5, res.NoOrigin)

	res, err = f.q.Redrive("dead", RedriveRequest{To: "retry", Max: 2})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Moved)
	assert.Equal(t, 3, res.Left)
	assert.Equal(t, map[string]int{"retry": 2}, res.ByTube)
	assert.Equal(t, ids[:2], []uint64{f.found(f.q.Peek(ids[0])), f.found(f.q.Peek(ids[1]))})
	assert.Equal(t, int64(2), f.tubeStats("retry").Ready)
	assert.Equal(t, int64(3), f.tubeStats("dead").Ready)
	res, err = f.q.Redrive("dead", RedriveRequest{To: "retry", Max: 100})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Moved)
	res, err = f.q.Redrive("dead", RedriveRequest{To: "retry"})
	require.NoError(t, err)
	assert.Zero(t, res.Moved)
	w, _ := f.session()
	f.watch(w, "retry")
	f.ignore(w, "default")
	assert.Equal(t, ids, f.reserveIDs(w, 5), "by priority, ids kept")
	s.Close()
	_, err = f.q.StatsTube([]byte("dead"))
	assert.ErrorIs(t, err, ErrNotFound, "an emptied, unused tube is dropped")
}

// TestRedriveLargeTubeInChunks: more jobs than one chunk all move, and a
// worker waiting on the origin gets one at once.
func TestRedriveLargeTubeInChunks(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	f.use(s, "dead")
	n := 3*redriveChunk + 7
	for range n {
		f.put(s, 1, 0)
	}
	w, wakes := f.session()
	f.watch(w, "retry")
	f.ignore(w, "default")
	f.waitFor(w, -1)
	res, err := f.q.Redrive("dead", RedriveRequest{To: "retry"})
	require.NoError(t, err)
	assert.Equal(t, n, res.Moved)
	assert.Equal(t, 1, wakes.n)
	id, err := f.outcome(w)
	require.NoError(t, err)
	assert.Equal(t, "retry", f.jobStats(id).Tube)
	assert.Equal(t, int64(n-1), f.tubeStats("retry").Ready)
	assert.Equal(t, int64(0), f.tubeStats("dead").Ready)
	assert.Equal(t, int64(n-1), f.q.Stats().Ready)
}

// TestRedriveErrors: bad names, a missing tube and a target that is the
// tube itself are refused; a journal failure stops the redrive with what
// moved before it reported, and leaves the failed job where it was.
func TestRedriveErrors(t *testing.T) {
	f, jr := newJournalFixture(t)
	s, _ := f.session()
	f.use(s, "dead")
	a := f.put(s, 1, 0)
	_, err := f.q.Redrive("-bad", RedriveRequest{})
	assert.ErrorIs(t, err, ErrBadTubeName)
	_, err = f.q.Redrive("dead", RedriveRequest{To: "-bad"})
	assert.ErrorIs(t, err, ErrBadTubeName)
	_, err = f.q.Redrive("nothing-here", RedriveRequest{})
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = f.q.Redrive("dead", RedriveRequest{To: "dead"})
	assert.ErrorIs(t, err, ErrSameTube)

	jr.fail = ErrNoSpace
	res, err := f.q.Redrive("dead", RedriveRequest{To: "retry"})
	assert.ErrorIs(t, err, ErrNoSpace)
	assert.Zero(t, res.Moved)
	assert.Equal(t, "dead", f.jobStats(a).Tube)
	assert.Equal(t, Ready, f.state(a))
	_, err = f.q.StatsTube([]byte("retry"))
	assert.ErrorIs(t, err, ErrNotFound, "the target made for the redrive went again")
	_, _, err = f.q.MoveJob(a, "retry")
	assert.ErrorIs(t, err, ErrNoSpace)
	assert.Equal(t, "dead", f.jobStats(a).Tube)
	jr.fail = nil
	b := f.put(s, 2, 0)
	res, err = f.q.Redrive("dead", RedriveRequest{To: "retry"})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Moved)
	assert.Equal(t, []uint64{a, b}, []uint64{f.found(f.q.Peek(a)), f.found(f.q.Peek(b))})
}

// TestMoveJob: a ready, buried or delayed job moves keeping its state (a
// delayed one its time), id, body and priority, with a fresh reserve count
// and no dead letter; a reserved job is refused; moving to the tube it is
// in changes nothing; the tube it left is dropped once unused.
func TestMoveJob(t *testing.T) {
	f, jr := newJournalFixture(t)
	require.NoError(t, f.q.SetPolicy("work", Policy{MaxReserves: 1, DeadLetter: "dead"}))
	s, _ := f.session()
	f.use(s, "work")
	f.watch(s, "work", "dead")
	f.ignore(s, "default")
	ready := f.put(s, 3, 0)
	f.spend(s, ready)
	_, ok := f.deadLetterOf(ready)
	require.True(t, ok)
	buried := f.put(s, 4, 0)
	_, _, err := s.ReserveJob(buried)
	require.NoError(t, err)
	_, err = s.Bury(buried, 4)
	require.NoError(t, err)
	delayed := f.put(s, 5, time.Hour)
	held := f.put(s, 6, 0)
	_, _, err = s.ReserveJob(held)
	require.NoError(t, err)
	jr.take()

	for id, want := range map[uint64]State{ready: Ready, buried: Buried, delayed: Delayed} {
		left := f.jobStats(id).TimeLeft
		seq, moved, err := f.q.MoveJob(id, "elsewhere")
		require.NoError(t, err)
		assert.True(t, moved)
		assert.NotZero(t, seq)
		js := f.jobStats(id)
		assert.Equal(t, "elsewhere", js.Tube)
		assert.Equal(t, want, js.State)
		assert.Equal(t, left, js.TimeLeft)
		assert.Zero(t, js.Reserves)
		_, ok := f.deadLetterOf(id)
		assert.False(t, ok)
	}
	recs := jr.take()
	require.Len(t, recs, 3)
	for _, r := range recs {
		assert.Equal(t, RecPut, r.Kind)
		assert.Equal(t, "elsewhere", r.Tube)
	}
	assert.Equal(t, int64(1), f.tubeStats("elsewhere").Buried)
	assert.Equal(t, int64(1), f.tubeStats("elsewhere").Delayed)

	_, _, err = f.q.MoveJob(held, "elsewhere")
	assert.ErrorIs(t, err, ErrReservedJob)
	_, _, err = f.q.MoveJob(123456, "elsewhere")
	assert.ErrorIs(t, err, ErrNotFound)
	_, _, err = f.q.MoveJob(ready, "bad name!")
	assert.ErrorIs(t, err, ErrBadTubeName)
	seq, moved, err := f.q.MoveJob(ready, "elsewhere")
	require.NoError(t, err)
	assert.False(t, moved)
	assert.Zero(t, seq)
	assert.Empty(t, jr.take())

	// The dead-letter tube lost its only job and no one uses it: dropped.
	_, err = f.q.StatsTube([]byte("dead"))
	require.NoError(t, err, "still watched")
	f.ignore(s, "dead")
	_, err = f.q.StatsTube([]byte("dead"))
	assert.ErrorIs(t, err, ErrNotFound)
}

// TestMoveRaces: moves, redrives and deletes of the same jobs from several
// goroutines leave every job in exactly one tube and the counters right
// (run with -race).
func TestMoveRaces(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	f.use(s, "t0")
	const n = 200
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = f.put(s, uint32(i), 0)
	}
	done := make(chan error, 4)
	for g := range 3 {
		go func() {
			for i := range ids {
				if _, _, err := f.q.MoveJob(ids[(i*7+g)%n], []string{"t0", "t1", "t2"}[(i+g)%3]); err != nil &&
					!errors.Is(err, ErrNotFound) {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	go func() {
		for range 20 {
			for _, from := range []string{"t0", "t1", "t2"} {
				if _, err := f.q.Redrive(from, RedriveRequest{To: "t3", Max: 10}); err != nil && !errors.Is(err, ErrNotFound) {
					done <- err
					return
				}
			}
		}
		done <- nil
	}()
	for range 4 {
		require.NoError(t, <-done)
	}
	var total int64
	for _, name := range f.q.ListTubes(nil) {
		total += f.tubeStats(name).Ready
	}
	assert.Equal(t, int64(n), total)
	assert.Equal(t, int64(n), f.q.Stats().Ready)
	for _, id := range ids {
		assert.Equal(t, Ready, f.state(id))
	}
}
