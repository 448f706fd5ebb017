package jobs

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func list(t *testing.T, q *Queue, tube string, st State, offset, count int) []uint64 {
	t.Helper()
	ids, err := q.ListJobs([]byte(tube), st, offset, count, nil)
	require.NoError(t, err)
	return ids
}

func TestListJobsOrders(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	a := f.put(s, 5, 0)
	b := f.put(s, 1, 0)
	c := f.put(s, 5, 0)
	d := f.put(s, 0, 0)
	dl1 := f.put(s, 0, 30*time.Second)
	dl2 := f.put(s, 0, 10*time.Second)
	dl3 := f.put(s, 9, 10*time.Second)

	assert.Equal(t, []uint64{d, b, a, c}, list(t, f.q, "default", Ready, 0, 10), "priority, then id")
	assert.Equal(t, []uint64{b, a}, list(t, f.q, "default", Ready, 1, 2), "paged")
	assert.Empty(t, list(t, f.q, "default", Ready, 4, 10), "past the end")
	assert.Equal(t, []uint64{dl2, dl3, dl1}, list(t, f.q, "default", Delayed, 0, 10), "deadline, then id")

	r1 := f.reserve(s) // d
	r2 := f.reserve(s) // b
	require.NoError(t, errOf(s.Bury(r2, 3)))
	require.NoError(t, errOf(s.Bury(r1, 3)))
	assert.Equal(t, []uint64{r2, r1}, list(t, f.q, "default", Buried, 0, 10), "bury order, not id order")
	assert.Equal(t, []uint64{r1}, list(t, f.q, "default", Buried, 1, 10))

	x := f.reserve(s) // a
	w := f.reserve(s) // c
	other, _ := f.session()
	require.NoError(t, other.Use([]byte("elsewhere")))
	_, err := other.Watch([]byte("elsewhere"))
	require.NoError(t, err)
	f.put(other, 0, 0)
	f.reserve(other) // reserved, but in another tube
	assert.Equal(t, []uint64{x, w}, list(t, f.q, "default", Reserved, 0, 10), "by id")
	assert.Equal(t, []uint64{w}, list(t, f.q, "default", Reserved, 1, 1))
}

func TestListJobsErrorsAndBounds(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	_, err := f.q.ListJobs([]byte("nope"), Ready, 0, 10, nil)
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = f.q.ListJobs([]byte("-bad"), Ready, 0, 10, nil)
	assert.ErrorIs(t, err, ErrBadTubeName)
	_, err = f.q.ListJobs([]byte("default"), State(0), 0, 10, nil)
	assert.ErrorIs(t, err, ErrBadState)
	for range MaxListJobs + 5 {
		f.put(s, 0, 0)
	}
	assert.Len(t, list(t, f.q, "default", Ready, 0, 5000), MaxListJobs, "capped")
	assert.Len(t, list(t, f.q, "default", Ready, MaxListJobs, 5000), 5)
	assert.Empty(t, list(t, f.q, "default", Ready, 0, 0))
}

// ordered walks the heap in order whatever its shape: compare with a sort.
func TestHeapOrderedMatchesSortedOrder(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	for i := range 300 {
		f.put(s, uint32((i*7919)%13), 0)
	}
	full := list(t, f.q, "default", Ready, 0, MaxListJobs)
	require.Len(t, full, 300)
	for i := 1; i < len(full); i++ {
		a, _ := f.q.StatsJob(full[i-1])
		b, _ := f.q.StatsJob(full[i])
		require.True(t, a.Pri < b.Pri || a.Pri == b.Pri && a.ID < b.ID, "position %d", i)
	}
	for off := 0; off < 300; off += 37 {
		assert.Equal(t, full[off:min(300, off+10)], list(t, f.q, "default", Ready, off, 10))
	}
	// The reserve order is the listed order.
	for _, id := range full[:20] {
		assert.Equal(t, id, f.reserve(s))
	}
}

func TestClearTube(t *testing.T) {
	f, j := newJournalFixture(t)
	s, w := f.session()
	require.NoError(t, s.Use([]byte("work")))
	_, err := s.Watch([]byte("work"))
	require.NoError(t, err)
	ready := f.put(s, 0, 0)
	res := f.put(s, 2000, 0)
	delayed := f.put(s, 0, time.Minute)
	buried := f.put(s, 1, 0)
	require.Equal(t, ready, f.reserve(s))
	require.Equal(t, buried, f.reserve(s))
	require.NoError(t, errOf(s.Bury(buried, 1)))
	require.NoError(t, errOf(s.Release(ready, 0, 0)))
	require.Equal(t, ready, f.reserve(s))
	require.NoError(t, errOf(s.Release(ready, 0, 0)))
	require.Equal(t, ready, f.reserve(s)) // reserved now; res stays ready
	j.take()

	n, seq, err := f.q.ClearTube([]byte("work"))
	require.NoError(t, err)
	assert.Equal(t, 3, n, "ready, delayed and buried; not the reserved one")
	assert.NotZero(t, seq)
	recs := j.take()
	require.Len(t, recs, 1, "one record for the whole tube")
	assert.Equal(t, RecClear, recs[0].Kind)
	assert.ElementsMatch(t, []uint64{res, delayed, buried}, recs[0].IDs)

	for _, id := range []uint64{res, delayed, buried} {
		_, err := f.q.Peek(id)
		assert.ErrorIs(t, err, ErrNotFound, "job %d", id)
	}
	_, err = f.q.Peek(ready)
	assert.NoError(t, err, "the reserved job is left to its worker")
	ts, err := f.q.StatsTube([]byte("work"))
	require.NoError(t, err)
	assert.Equal(t, TubeStats{Name: "work", Reserved: 1, TotalJobs: 4, Using: 1, Watching: 1},
		withoutPause(ts))
	st := f.q.Stats()
	assert.Zero(t, st.Ready+st.Delayed+st.Buried+st.Urgent)
	assert.EqualValues(t, 1, st.Reserved)

	// The reserved job is still its worker's.
	require.NoError(t, errOf(s.Delete(ready)))
	// The delayed job's timer is gone: nothing fires, nothing is woken.
	f.advance(2 * time.Minute)
	assert.Zero(t, w.n)
	_, err = s.Reserve(0)
	assert.ErrorIs(t, err, ErrTimedOut)
	// And the queue keeps working.
	id := f.put(s, 0, 0)
	assert.Equal(t, id, f.reserve(s))
}

func TestClearTubeEdges(t *testing.T) {
	f, j := newJournalFixture(t)
	s, _ := f.session()
	_, _, err := f.q.ClearTube([]byte("missing"))
	assert.ErrorIs(t, err, ErrNotFound)
	_, _, err = f.q.ClearTube([]byte("-x"))
	assert.ErrorIs(t, err, ErrBadTubeName)
	n, seq, err := f.q.ClearTube([]byte("default"))
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Zero(t, seq)
	assert.Empty(t, j.take(), "nothing to clear, nothing logged")

	// A tube that only its jobs kept alive vanishes with them.
	require.NoError(t, s.Use([]byte("gone")))
	f.put(s, 0, 0)
	f.put(s, 0, time.Hour)
	require.NoError(t, s.Use([]byte("default")))
	n, _, err = f.q.ClearTube([]byte("gone"))
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	_, err = f.q.StatsTube([]byte("gone"))
	assert.ErrorIs(t, err, ErrNotFound, "the tube went with its last job")

	// A refused record changes nothing.
	id := f.put(s, 0, 0)
	j.fail = errors.New("disk")
	_, _, err = f.q.ClearTube([]byte("default"))
	require.Error(t, err)
	j.fail = nil
	_, err = f.q.Peek(id)
	assert.NoError(t, err)
	assert.EqualValues(t, 1, f.q.Stats().Ready)
}

func TestClearTubeLarge(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	const n = 100_000
	for i := range n {
		f.put(s, uint32(i%2000), time.Duration(i%3)*time.Second)
	}
	got, _, err := f.q.ClearTube([]byte("default"))
	require.NoError(t, err)
	assert.Equal(t, n, got)
	st := f.q.Stats()
	assert.Zero(t, st.Ready+st.Delayed+st.Urgent)
	for i := range f.q.jobs.shards {
		assert.Zero(t, f.q.jobs.shards[i].n)
		assert.LessOrEqual(t, len(f.q.jobs.shards[i].slots), minIndexSlots, "a drained index gives its tables back")
	}
}

func errOf(_ uint64, err error) error { return err }

func withoutPause(ts TubeStats) TubeStats {
	ts.Pause, ts.PauseLeft = 0, 0
	return ts
}
