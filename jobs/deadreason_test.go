package jobs

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deadLetterFixture is a queue on a manual clock and a fake journal whose
// tube "work" sends a job to "dead" after one reserve, with session s
// using and watching "work".
func deadLetterFixture(t *testing.T) (*fixture, *fakeJournal, *Session) {
	f, jr := newJournalFixture(t)
	require.NoError(t, f.q.SetPolicy("work", Policy{MaxReserves: 1, DeadLetter: "dead"}))
	s, _ := f.session()
	f.use(s, "work")
	f.watch(s, "work")
	jr.take()
	return f, jr, s
}

// deadLetterOf returns what job id remembers of its move, failing the test
// if the job does not exist.
func (f *fixture) deadLetterOf(id uint64) (DeadLetter, bool) {
	f.t.Helper()
	dl, ok, err := f.q.JobDeadLetter(id)
	require.NoError(f.t, err)
	return dl, ok
}

// TestDeadLetterRemembersWhy: a job moved by max_reserves remembers the
// tube it left, the reason (after a release, after its TTR ran out) and the
// queue-clock time it moved, in the queue and in the put record the journal
// gets; stats-job is unchanged by it; a job buried in place remembers
// nothing (it did not move).
func TestDeadLetterRemembersWhy(t *testing.T) {
	f, jr, s := deadLetterFixture(t)
	released := f.putTTR(s, 5, 0, 10*time.Second)
	timedOut := f.putTTR(s, 6, 0, time.Second)
	require.Equal(t, released, f.reserve(s))
	f.advance(3 * time.Second)
	_, err := s.Release(released, 5, 0)
	require.NoError(t, err)
	require.Equal(t, timedOut, f.reserve(s))
	f.advance(1100 * time.Millisecond) // past the TTR: the timer moves it

	dl, ok := f.deadLetterOf(released)
	require.True(t, ok)
	assert.Equal(t, DeadLetter{Origin: "work", Reason: DeadReleased, At: t0 + int64(3*time.Second)}, dl)
	dl, ok = f.deadLetterOf(timedOut)
	require.True(t, ok)
	assert.Equal(t, DeadLetter{Origin: "work", Reason: DeadTimedOut, At: t0 + int64(4100*time.Millisecond)}, dl)
	assert.Equal(t, "dead", f.jobStats(timedOut).Tube)

	var puts []Record
	for _, r := range jr.take() {
		if r.Kind == RecPut && r.Tube == "dead" {
			puts = append(puts, r)
		}
	}
	require.Len(t, puts, 2, "one whole record per move")
	assert.Equal(t, "dead", puts[0].Tube)
	require.NotNil(t, puts[0].Dead)
	assert.Equal(t, DeadLetter{Origin: "work", Reason: DeadReleased, At: t0 + int64(3*time.Second)}, *puts[0].Dead)
	assert.Equal(t, DeadTimedOut, puts[1].Dead.Reason)

	// A compaction rewrite keeps it.
	_, ok = f.q.Rewrite(released)
	require.True(t, ok)
	re := jr.take()
	require.Len(t, re, 1)
	require.NotNil(t, re[0].Dead)
	assert.Equal(t, DeadReleased, re[0].Dead.Reason)

	// Updates do not carry it (the job keeps what its put said).
	w, _ := f.session()
	f.watch(w, "dead")
	f.ignore(w, "default")
	got := f.reserve(w)
	_, err = w.Release(got, 1, 0)
	require.NoError(t, err)
	for _, r := range jr.take() {
		assert.Nil(t, r.Dead, "%v record", r.Kind)
	}
	_, ok = f.deadLetterOf(got)
	assert.True(t, ok, "a job released in the dead-letter tube still remembers")

	// Buried in place: nothing to remember.
	require.NoError(t, f.q.SetPolicy("solo", Policy{MaxReserves: 1}))
	f.use(s, "solo")
	f.watch(s, "solo")
	f.ignore(s, "work")
	b := f.put(s, 1, 0)
	require.Equal(t, b, f.reserve(s))
	_, err = s.Release(b, 1, 0)
	require.NoError(t, err)
	require.Equal(t, Buried, f.state(b))
	_, ok = f.deadLetterOf(b)
	assert.False(t, ok)
	_, _, err = f.q.JobDeadLetter(99999)
	assert.ErrorIs(t, err, ErrNotFound)
}

// TestRestoreKeepsDeadLetter: a put record's DeadLetter comes back with
// the job.
func TestRestoreKeepsDeadLetter(t *testing.T) {
	f := newFixture(t)
	dl := &DeadLetter{Origin: "emails", Reason: DeadTimedOut, At: t0 - 5}
	require.NoError(t, f.q.Restore(Record{Kind: RecPut, ID: 9, Tube: "emails-dead", State: Buried,
		TTR: time.Second, Created: t0 - 10, Body: bodyOf(9), Dead: dl}))
	require.NoError(t, f.q.Restore(Record{Kind: RecPut, ID: 10, Tube: "emails-dead", State: Ready,
		TTR: time.Second, Created: t0 - 10, Body: bodyOf(10)}))
	got, ok := f.deadLetterOf(9)
	require.True(t, ok)
	assert.Equal(t, *dl, got)
	_, ok = f.deadLetterOf(10)
	assert.False(t, ok)
}

// TestDeadReasonTable: every declared reason has a distinct name that
// parses back, and a sentence; undeclared values say so.
func TestDeadReasonTable(t *testing.T) {
	rs := DeadReasons()
	require.Equal(t, []DeadReason{DeadReleased, DeadTimedOut, DeadOverflow}, rs)
	names := map[string]bool{}
	for _, r := range rs {
		assert.True(t, r.Valid())
		assert.NotEmpty(t, r.Text())
		assert.False(t, names[r.String()], "duplicate name %s", r)
		names[r.String()] = true
		back, ok := ParseDeadReason(r.String())
		assert.True(t, ok)
		assert.Equal(t, r, back)
	}
	assert.Equal(t, "max_reserves_released", DeadReleased.String())
	assert.Equal(t, "max_reserves_timed_out", DeadTimedOut.String())
	assert.Equal(t, "overflow", DeadOverflow.String())
	for _, bad := range []DeadReason{0, DeadReason(len(deadReasons)), 255} {
		assert.False(t, bad.Valid())
		assert.Equal(t, "unknown", bad.String())
	}
	_, ok := ParseDeadReason("")
	assert.False(t, ok)
	_, ok = ParseDeadReason("expired")
	assert.False(t, ok, "not declared yet (issue 31)")
}

// TestDeadLetterCostsOrdinaryJobsNothing pins the memory claim: the job
// stays 64 bytes, and the extension (allocated only for reserved, delayed,
// buried or moved jobs) stays in the 128-byte size class with its
// DeadLetter pointer; the Record (kept per job by a cluster's state and a
// replay's image) stays 160 bytes.
func TestDeadLetterCostsOrdinaryJobsNothing(t *testing.T) {
	assert.Equal(t, uintptr(64), reflect.TypeFor[job]().Size())
	assert.LessOrEqual(t, reflect.TypeFor[jobExt]().Size(), uintptr(128))
	assert.Equal(t, uintptr(160), reflect.TypeFor[Record]().Size())
	assert.Equal(t, uintptr(32), reflect.TypeFor[DeadLetter]().Size(), "what a dead-lettered job adds")
}

// TestOverflowStamp: a job an overflowing put sends to the dead-letter
// tube carries reason overflow in its put record and in the queue, and a
// redrive takes it back to the tube its producer used.
func TestOverflowStamp(t *testing.T) {
	f, jr := newJournalFixture(t)
	require.NoError(t, f.q.SetPolicy("webhooks", Policy{MaxReady: 1, Overflow: OverflowDeadLetter, DeadLetter: "webhooks-dead"}))
	s, _ := f.session()
	f.use(s, "webhooks")
	f.put(s, 1, 0) // fills the tube
	f.clock.Advance(7 * time.Second)
	jr.take()
	id := f.put(s, 3, 0) // overflows into the dead-letter tube
	recs := jr.take()
	require.Len(t, recs, 1)
	require.NotNil(t, recs[0].Dead)
	assert.Equal(t, DeadLetter{Origin: "webhooks", Reason: DeadOverflow, At: t0 + int64(7*time.Second)}, *recs[0].Dead)
	assert.Equal(t, "webhooks-dead", recs[0].Tube)
	dl, ok := f.deadLetterOf(id)
	require.True(t, ok)
	assert.Equal(t, DeadOverflow, dl.Reason)

	res, err := f.q.Redrive("webhooks-dead", RedriveRequest{})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Moved)
	assert.Equal(t, "webhooks", f.jobStats(id).Tube)
}
