package embed

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
)

// embedClockStart is where the manual clocks of these tests start.
const embedClockStart = int64(1_800_000_000) * 1e9

// openTest opens a queue that is closed when the test ends.
func openTest(t testing.TB, o Options) *Queue {
	t.Helper()
	q, err := Open(o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = q.Close() })
	return q
}

// openManual opens an in-memory queue on a manual clock.
func openManual(t testing.TB) (*Queue, *jobs.ManualClock) {
	clk := jobs.NewManualClock(embedClockStart)
	return openTest(t, Options{Clock: clk}), clk
}

// waitWaiting waits (bounded) until n in-process reserves are blocked.
func waitWaiting(t testing.TB, q *Queue, n int64) {
	t.Helper()
	require.Eventually(t, func() bool { return q.Stats().Waiting == n }, ioTimeout, time.Millisecond)
}

func bg() context.Context { return context.Background() }

func TestEmbedPutReserveDelete(t *testing.T) {
	q := openTest(t, Options{})
	id, err := q.Put(bg(), "emails", []byte("hello"), PutOptions{Pri: 7, TTR: 30 * time.Second})
	require.NoError(t, err)

	job, err := q.Reserve(bg(), "emails")
	require.NoError(t, err)
	assert.Equal(t, id, job.ID)
	assert.Equal(t, "hello", string(job.Body), "the body comes back without the wire's CRLF")
	st, err := job.Stats()
	require.NoError(t, err)
	assert.Equal(t, jobs.Reserved, st.State)
	assert.Equal(t, "emails", st.Tube)
	assert.Equal(t, uint32(7), st.Pri)
	assert.Equal(t, 30*time.Second, st.TTR)

	require.NoError(t, job.Delete(bg()))
	_, err = q.StatsJob(id)
	assert.ErrorIs(t, err, ErrNotFound)
	assert.ErrorIs(t, job.Delete(bg()), ErrNotFound, "a finished job cannot be finished again")
	assert.ErrorIs(t, job.Touch(), ErrNotFound)
}

func TestEmbedDefaultTTRAndTube(t *testing.T) {
	q := openTest(t, Options{DefaultTTR: 42 * time.Second})
	id, err := q.Put(bg(), "default", nil, PutOptions{})
	require.NoError(t, err)
	job, err := q.Reserve(bg()) // no tubes: "default"
	require.NoError(t, err)
	require.Equal(t, id, job.ID)
	assert.Empty(t, job.Body)
	st, err := job.Stats()
	require.NoError(t, err)
	assert.Equal(t, 42*time.Second, st.TTR)
}

func TestEmbedReserveBlocksUntilPut(t *testing.T) {
	q := openTest(t, Options{})
	got := make(chan Job, 1)
	go func() {
		job, err := q.Reserve(bg(), "a", "b")
		assert.NoError(t, err)
		got <- job
	}()
	waitWaiting(t, q, 1)
	id, err := q.Put(bg(), "b", []byte("x"), PutOptions{})
	require.NoError(t, err)
	job := <-got
	assert.Equal(t, id, job.ID)
	require.NoError(t, job.Delete(bg()))
}

func TestEmbedReserveCancelLeavesNoWaiter(t *testing.T) {
	q := openTest(t, Options{})
	ctx, cancel := context.WithCancel(bg())
	errc := make(chan error, 1)
	go func() {
		_, err := q.Reserve(ctx, "t")
		errc <- err
	}()
	waitWaiting(t, q, 1)
	cancel()
	require.ErrorIs(t, <-errc, context.Canceled)
	assert.Zero(t, q.Stats().Waiting, "the cancelled reserve left a waiter")
	ts, err := q.StatsTube("t")
	require.NoError(t, err)
	assert.Zero(t, ts.Waiting)

	// The next job is not swallowed by a ghost waiter.
	id, err := q.Put(bg(), "t", []byte("x"), PutOptions{})
	require.NoError(t, err)
	job, err := q.TryReserve("t")
	require.NoError(t, err)
	assert.Equal(t, id, job.ID)

	_, err = q.Reserve(ctx, "t") // an ended context takes nothing
	assert.ErrorIs(t, err, context.Canceled)
}

// A job handed to a waiter whose context has just ended goes back to
// ready: the hand-off and the cancellation race, and neither loses it.
func TestEmbedCancelRaceGivesJobBack(t *testing.T) {
	q := openTest(t, Options{})
	l := q.reservers.Get().(*lease)
	require.NoError(t, l.watch([]string{"t"}))
	_, err := l.session().Reserve(-1)
	require.ErrorIs(t, err, jobs.ErrWaiting)
	id, err := q.PutNoWait("t", []byte("won"), PutOptions{Pri: 3})
	require.NoError(t, err)
	st, err := q.StatsJob(id)
	require.NoError(t, err)
	require.Equal(t, jobs.Reserved, st.State, "the put went straight to the waiter")

	q.abandonWait(l) // what await does when ctx ends now
	st, err = q.StatsJob(id)
	require.NoError(t, err)
	assert.Equal(t, jobs.Ready, st.State)
	assert.Equal(t, uint32(3), st.Pri)
	assert.Zero(t, st.Releases, "giving back is not a release")
	assert.Zero(t, q.Stats().Waiting)

	job, err := q.TryReserve("t")
	require.NoError(t, err)
	assert.Equal(t, id, job.ID)
	assert.Equal(t, "won", string(job.Body))
}

func TestEmbedReserveTimeoutOnQueueClock(t *testing.T) {
	q, clk := openManual(t)
	errc := make(chan error, 1)
	go func() {
		_, err := q.ReserveTimeout(bg(), 5*time.Second, "t")
		errc <- err
	}()
	waitWaiting(t, q, 1)
	clk.Advance(5 * time.Second)
	q.Jobs().Tick()
	assert.ErrorIs(t, <-errc, ErrTimedOut)
	assert.Zero(t, q.Stats().Waiting)

	_, err := q.TryReserve("t")
	assert.ErrorIs(t, err, ErrTimedOut)
}

func TestEmbedTTRExpiry(t *testing.T) {
	q, clk := openManual(t)
	id, err := q.Put(bg(), "t", []byte("x"), PutOptions{TTR: 10 * time.Second})
	require.NoError(t, err)
	job, err := q.TryReserve("t")
	require.NoError(t, err)

	clk.Advance(8 * time.Second)
	require.NoError(t, job.Touch())
	clk.Advance(8 * time.Second) // 16s after reserve, 8s after the touch
	q.Jobs().Tick()
	st, err := q.StatsJob(id)
	require.NoError(t, err)
	require.Equal(t, jobs.Reserved, st.State, "the touch extended the TTR")

	clk.Advance(3 * time.Second)
	q.Jobs().Tick()
	st, err = q.StatsJob(id)
	require.NoError(t, err)
	assert.Equal(t, jobs.Ready, st.State)
	assert.Equal(t, uint32(1), st.Timeouts)
	assert.ErrorIs(t, job.Bury(bg(), 0), ErrNotFound, "the job is no longer ours")
	assert.ErrorIs(t, job.Touch(), ErrNotFound)
	again, err := q.TryReserve("t")
	require.NoError(t, err)
	assert.Equal(t, id, again.ID)
}

func TestEmbedReleaseBuryKick(t *testing.T) {
	q, clk := openManual(t)
	a, _ := q.Put(bg(), "t", []byte("a"), PutOptions{Pri: 5})
	b, _ := q.Put(bg(), "t", []byte("b"), PutOptions{Pri: 6})

	ja, err := q.TryReserve("t")
	require.NoError(t, err)
	require.Equal(t, a, ja.ID)
	require.NoError(t, ja.Release(bg(), 9, 10*time.Second))
	p, err := q.PeekDelayed("t")
	require.NoError(t, err)
	assert.Equal(t, Peeked{ID: a, Body: []byte("a")}, p)

	jb, err := q.TryReserve("t")
	require.NoError(t, err)
	require.Equal(t, b, jb.ID)
	require.NoError(t, jb.Bury(bg(), 1))
	p, err = q.PeekBuried("t")
	require.NoError(t, err)
	assert.Equal(t, b, p.ID)
	_, err = q.PeekReady("t")
	assert.ErrorIs(t, err, ErrNotFound)

	n, err := q.Kick(bg(), "t", 10) // buried first: only b
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	p, err = q.PeekReady("t")
	require.NoError(t, err)
	assert.Equal(t, b, p.ID)

	require.NoError(t, q.KickJob(bg(), a))
	st, err := q.StatsJob(a)
	require.NoError(t, err)
	assert.Equal(t, jobs.Ready, st.State)
	assert.Equal(t, uint32(1), st.Releases)
	assert.Equal(t, uint32(9), st.Pri)

	require.NoError(t, q.Delete(bg(), a))
	_, err = q.Peek(a)
	assert.ErrorIs(t, err, ErrNotFound)
	p, err = q.Peek(b)
	require.NoError(t, err)
	assert.Equal(t, "b", string(p.Body))

	// Pause: a ready job is out of reach until the pause ends.
	require.NoError(t, q.Pause("t", time.Minute))
	_, err = q.TryReserve("t")
	assert.ErrorIs(t, err, ErrTimedOut)
	clk.Advance(time.Minute + time.Millisecond)
	q.Jobs().Tick()
	job, err := q.TryReserve("t")
	require.NoError(t, err)
	assert.Equal(t, b, job.ID)
	ts, err := q.StatsTube("t")
	require.NoError(t, err)
	assert.Equal(t, uint64(1), ts.Pauses)
	assert.Contains(t, q.ListTubes(), "t")
}

func TestEmbedErrors(t *testing.T) {
	q := openTest(t, Options{MaxJobSize: 4})
	_, err := q.Put(bg(), "t", []byte("12345"), PutOptions{})
	assert.ErrorIs(t, err, ErrJobTooBig)
	_, err = q.Put(bg(), "-bad", []byte("1"), PutOptions{})
	assert.ErrorIs(t, err, ErrBadTubeName)
	_, err = q.Reserve(bg(), "ok", strings.Repeat("x", 201))
	assert.ErrorIs(t, err, ErrBadTubeName)
	_, err = q.StatsTube("nope")
	assert.ErrorIs(t, err, ErrNotFound)
	var zero Job
	assert.ErrorIs(t, zero.Delete(bg()), ErrNotFound)

	q.Jobs().SetDraining(true)
	_, err = q.Put(bg(), "t", []byte("1"), PutOptions{})
	assert.ErrorIs(t, err, ErrDraining)
	q.Jobs().SetDraining(false)

	for _, o := range []Options{
		{MaxJobSize: -1}, {MaxJobSize: engine.MaxJobSizeLimit + 1}, {DefaultTTR: -1},
		{SyncInterval: time.Second}, {NoSync: true},
	} {
		_, err := Open(o)
		assert.Error(t, err, "%+v", o)
	}
}

func TestEmbedCloseEndsBlockedCalls(t *testing.T) {
	q, err := Open(Options{})
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() {
		_, err := q.Reserve(bg(), "t")
		errc <- err
	}()
	waitWaiting(t, q, 1)
	require.NoError(t, q.Close())
	assert.ErrorIs(t, <-errc, ErrClosed)
	_, err = q.Put(bg(), "t", nil, PutOptions{})
	assert.ErrorIs(t, err, ErrClosed)
	_, err = q.Reserve(bg(), "t")
	assert.ErrorIs(t, err, ErrClosed)
	require.NoError(t, q.Close(), "Close is idempotent")
}

func openJournaled(t *testing.T) (*Queue, *enginetest.Journal) {
	o, err := Options{}.validate()
	require.NoError(t, err)
	j := &enginetest.Journal{}
	q := start(o, jobs.New(jobs.Config{Journal: j}), nil, j.Subscribe)
	t.Cleanup(func() { _ = q.Close() })
	return q, j
}

func TestEmbedPutWaitsForCommit(t *testing.T) {
	q, j := openJournaled(t)
	type result struct {
		id  uint64
		err error
	}
	res := make(chan result, 1)
	go func() {
		id, err := q.Put(bg(), "t", []byte("x"), PutOptions{})
		res <- result{id, err}
	}()
	require.Eventually(t, func() bool { return j.Appended() == 1 }, ioTimeout, time.Millisecond)
	j.Commit(0, nil) // a commit notification that does not cover it
	select {
	case r := <-res:
		t.Fatalf("Put returned before its record was committed: %+v", r)
	default:
	}
	// PutNoWait does not wait; Sync waits for it.
	_, err := q.PutNoWait("t", []byte("y"), PutOptions{})
	require.NoError(t, err)
	syncErr := make(chan error, 1)
	go func() { syncErr <- q.Sync(bg()) }()

	j.Commit(2, nil)
	r := <-res
	require.NoError(t, r.err)
	assert.NotZero(t, r.id)
	require.NoError(t, <-syncErr)

	// A context that ends first: the id comes back with the error.
	ctx, cancel := context.WithCancel(bg())
	cancel()
	id, err := q.Put(ctx, "t", []byte("z"), PutOptions{})
	assert.ErrorIs(t, err, context.Canceled)
	assert.NotZero(t, id)

	// A failed journal: the error wraps ErrJournal.
	disk := errors.New("disk on fire")
	go func() {
		_, err := q.Put(bg(), "t", []byte("w"), PutOptions{})
		res <- result{0, err}
	}()
	require.Eventually(t, func() bool { return j.Appended() == 4 }, ioTimeout, time.Millisecond)
	j.Commit(3, disk)
	r = <-res
	assert.ErrorIs(t, r.err, ErrJournal)
	assert.ErrorIs(t, r.err, disk)
}

func TestEmbedPersistentReopen(t *testing.T) {
	dir := t.TempDir()
	q, err := Open(Options{Dir: dir})
	require.NoError(t, err)
	ready, err := q.Put(bg(), "t", []byte("ready"), PutOptions{Pri: 2})
	require.NoError(t, err)
	buried, err := q.Put(bg(), "t", []byte("buried"), PutOptions{Pri: 3})
	require.NoError(t, err)
	gone, err := q.Put(bg(), "t", []byte("gone"), PutOptions{Pri: 4})
	require.NoError(t, err)
	held, err := q.Put(bg(), "u", []byte("held"), PutOptions{})
	require.NoError(t, err)
	var held3 [3]Job
	for i, want := range []uint64{ready, buried, gone} {
		held3[i], err = q.TryReserve("t")
		require.NoError(t, err)
		require.Equal(t, want, held3[i].ID)
	}
	require.NoError(t, held3[0].Release(bg(), 2, 0))
	require.NoError(t, held3[1].Bury(bg(), 3))
	require.NoError(t, held3[2].Delete(bg()))
	_, err = q.TryReserve("u") // reserved when the queue closes
	require.NoError(t, err)
	require.NoError(t, q.Close())

	q = openTest(t, Options{Dir: dir})
	for id, want := range map[uint64]jobs.State{ready: jobs.Ready, buried: jobs.Buried, held: jobs.Ready} {
		st, err := q.StatsJob(id)
		require.NoError(t, err, "job %d", id)
		assert.Equal(t, want, st.State, "job %d", id)
	}
	_, err = q.StatsJob(gone)
	assert.ErrorIs(t, err, ErrNotFound)
	p, err := q.PeekBuried("t")
	require.NoError(t, err)
	assert.Equal(t, "buried", string(p.Body))
	st, _ := q.StatsJob(ready)
	assert.Equal(t, uint32(1), st.Releases, "counters survive the restart")
	next, err := q.Put(bg(), "t", nil, PutOptions{})
	require.NoError(t, err)
	assert.Greater(t, next, held, "ids continue above the log's")
}

// Clear and ListJobs, with string tube names, durable through the journal.
func TestEmbedClearAndList(t *testing.T) {
	dir := t.TempDir()
	q := openTest(t, Options{Dir: dir})
	var ids []uint64
	for i := range 5 {
		id, err := q.Put(bg(), "work", []byte("job"), PutOptions{Pri: uint32(10 - i)})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	got, err := q.ListJobs("work", jobs.Ready, 0, 10)
	require.NoError(t, err)
	assert.Equal(t, []uint64{ids[4], ids[3], ids[2], ids[1], ids[0]}, got, "by priority")
	job, err := q.Reserve(bg(), "work")
	require.NoError(t, err)
	got, err = q.ListJobs("work", jobs.Reserved, 0, 10)
	require.NoError(t, err)
	assert.Equal(t, []uint64{job.ID}, got)

	n, err := q.Clear(bg(), "work")
	require.NoError(t, err)
	assert.Equal(t, 4, n, "the reserved job stays")
	_, err = q.Clear(bg(), "nope")
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = q.ListJobs("nope", jobs.Ready, 0, 1)
	assert.ErrorIs(t, err, ErrNotFound)
	require.NoError(t, job.Delete(bg()))
	require.NoError(t, q.Close())

	again := openTest(t, Options{Dir: dir})
	assert.Zero(t, again.Stats().Ready, "the clear survived the restart")
	next, err := again.Put(bg(), "work", []byte("after"), PutOptions{})
	require.NoError(t, err)
	assert.Greater(t, next, ids[4], "ids never repeat")
	_, err = again.Peek(ids[0])
	assert.ErrorIs(t, err, ErrNotFound)
}
