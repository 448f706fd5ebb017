package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newReplicatedFixture(t *testing.T) (*fixture, *fakeJournal) {
	clk := NewManualClock(t0)
	j := &fakeJournal{}
	return &fixture{t: t, clock: clk, q: New(Config{Clock: clk, Journal: j, Replicated: true})}, j
}

// TestReplicatedLogsReservations checks the records replicated mode adds: a
// reserve (direct and handed to a waiter), a touch, a TTR running out and a
// closing session's jobs, and that LastSeq names the reservation's record.
func TestReplicatedLogsReservations(t *testing.T) {
	f, jr := newReplicatedFixture(t)
	s, _ := f.session()
	id := f.putTTR(s, 5, 0, 3*time.Second)
	jr.take()

	assert.Equal(t, id, f.reserve(s))
	recs := jr.take()
	require.Len(t, recs, 1)
	assert.Equal(t, RecUpdate, recs[0].Kind)
	assert.Equal(t, Reserved, recs[0].State)
	assert.Equal(t, t0+int64(3*time.Second), recs[0].Deadline)
	assert.Equal(t, uint32(1), recs[0].Reserves)
	assert.Equal(t, uint64(2), s.LastSeq())

	f.advance(time.Second)
	require.NoError(t, s.Touch(id))
	recs = jr.take()
	require.Len(t, recs, 1)
	assert.Equal(t, Reserved, recs[0].State)
	assert.Equal(t, t0+int64(4*time.Second), recs[0].Deadline)
	assert.Equal(t, uint64(3), s.LastSeq())

	f.advance(3*time.Second + time.Millisecond) // the TTR runs out
	recs = jr.take()
	require.Len(t, recs, 1)
	assert.Equal(t, Ready, recs[0].State)
	assert.Equal(t, uint32(1), recs[0].Timeouts)
	assert.Equal(t, int64(0), recs[0].Deadline)

	// A waiter handed the job: the hand-off logs the reservation.
	w, wc := f.session()
	_, err := w.Reserve(-1)
	require.NoError(t, err) // the job is ready: taken at once
	jr.take()
	_, err = w.Release(id, 1, 0)
	require.NoError(t, err)
	jr.take()
	w2, wc2 := f.session()
	f.reserve(w2)
	_, err = w.Reserve(-1)
	require.ErrorIs(t, err, ErrWaiting)
	jr.take()
	w2.Close() // back to ready, logged, handed to w
	recs = jr.take()
	require.Len(t, recs, 2)
	assert.Equal(t, Ready, recs[0].State)
	assert.Equal(t, Reserved, recs[1].State)
	assert.Equal(t, 1, wc.n)
	assert.Equal(t, 0, wc2.n)
	got, err := w.TakeOutcome()
	require.NoError(t, err)
	assert.Equal(t, id, got.ID)
	assert.Equal(t, jr.seq, w.LastSeq())
}

// TestReplicatedOrphans checks a reservation restored without its session:
// it stays reserved until its deadline (nobody else can reserve it), any
// session can adopt it by id, and an unadopted one times out to ready.
func TestReplicatedOrphans(t *testing.T) {
	f, jr := newReplicatedFixture(t)
	rec := func(id uint64, deadline int64) Record {
		return Record{Kind: RecPut, ID: id, Tube: "default", State: Reserved, Pri: 1, TTR: 5 * time.Second,
			Created: t0, Deadline: deadline, Reserves: 1, Body: bodyOf(id)}
	}
	require.NoError(t, f.q.Restore(rec(1, t0+int64(2*time.Second))))
	require.NoError(t, f.q.Restore(rec(2, t0+int64(2*time.Second))))
	require.NoError(t, f.q.Restore(rec(3, t0-1))) // deadline gone: ready
	assert.Equal(t, Reserved, f.state(1))
	assert.Equal(t, Ready, f.state(3))
	assert.Equal(t, int64(2), f.q.Stats().Reserved)

	s, _ := f.session()
	assert.Equal(t, uint64(3), f.reserve(s))
	_, err := s.Reserve(0)
	assert.ErrorIs(t, err, ErrTimedOut, "orphans are not ready")

	other, _ := f.session()
	_, err = other.Delete(1) // adopts and deletes
	require.NoError(t, err)
	assert.Equal(t, State(0), f.state(1))

	jr.take()
	f.advance(2*time.Second + time.Millisecond) // job 2's TTR runs out
	assert.Equal(t, Ready, f.state(2))
	assert.Equal(t, uint32(1), f.jobStats(2).Timeouts)
	recs := jr.take()
	require.Len(t, recs, 1)
	assert.Equal(t, Ready, recs[0].State)
	assert.Equal(t, int64(1), f.q.Stats().Reserved) // job 3, held by s
}

// TestNotReplicatedUnchanged checks that without the mode a reservation
// logs nothing and a reserved record restores as ready.
func TestNotReplicatedUnchanged(t *testing.T) {
	f, jr := newJournalFixture(t)
	s, _ := f.session()
	id := f.put(s, 1, 0)
	jr.take()
	f.reserve(s)
	require.NoError(t, s.Touch(id))
	assert.Empty(t, jr.take())
	assert.Equal(t, uint64(0), s.LastSeq())

	g := newFixture(t)
	require.NoError(t, g.q.Restore(Record{Kind: RecPut, ID: 9, Tube: "default", State: Reserved,
		Deadline: t0 + int64(time.Hour), Body: bodyOf(9)}))
	assert.Equal(t, Ready, g.state(9))
}

// TestReplicatedPause: a pause is logged with its length and end, and
// RestorePause re-arms it (on an existing tube, while it lasts).
func TestReplicatedPause(t *testing.T) {
	f, jr := newReplicatedFixture(t)
	s, _ := f.session()
	f.use(s, "p")
	f.put(s, 1, 0)
	jr.take()
	seq, err := f.q.PauseTubeSeq([]byte("p"), 5*time.Second)
	require.NoError(t, err)
	assert.Equal(t, jr.seq, seq)
	recs := jr.take()
	require.Len(t, recs, 1)
	assert.Equal(t, Record{Kind: RecPause, Tube: "p", Delay: 5 * time.Second, Deadline: t0 + int64(5*time.Second)}, recs[0])

	g, _ := newReplicatedFixture(t)
	require.NoError(t, g.q.Restore(Record{Kind: RecPut, ID: 1, Tube: "p", State: Ready, Body: bodyOf(1)}))
	require.NoError(t, g.q.RestorePause("p", 5*time.Second, t0+int64(3*time.Second)))
	require.NoError(t, g.q.RestorePause("gone", 5*time.Second, t0+int64(3*time.Second)), "no such tube: nothing to do")
	ts := g.tubeStats("p")
	assert.Equal(t, 5*time.Second, ts.Pause)
	assert.Equal(t, 3*time.Second, ts.PauseLeft)
	w, _ := g.session()
	g.watch(w, "p")
	_, err = w.Reserve(0)
	assert.ErrorIs(t, err, ErrTimedOut, "paused")
	g.advance(3 * time.Second)
	_, err = w.Reserve(0)
	assert.NoError(t, err, "the pause ended on time")

	n := newFixture(t) // not replicated: nothing logged, seq 0
	seq, err = n.q.PauseTubeSeq([]byte("default"), time.Second)
	require.NoError(t, err)
	assert.Zero(t, seq)
}
