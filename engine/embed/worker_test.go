package embed

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// startTestWorker starts a worker stopped when the test ends; mutate may
// adjust it before its goroutines start (test hooks).
func startTestWorker(t *testing.T, q *Queue, h Handler, o WorkerOptions, mutate ...func(*Worker)) *Worker {
	t.Helper()
	w := newWorker(q, h, o.withDefaults())
	for _, m := range mutate {
		m(w)
	}
	w.launch()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(bg(), ioTimeout)
		defer cancel()
		assert.NoError(t, w.Stop(ctx))
	})
	return w
}

// jobState waits (bounded) until job id is in state want, then returns its
// stats.
func jobState(t *testing.T, q *Queue, id uint64, want jobs.State) jobs.JobStats {
	t.Helper()
	var st jobs.JobStats
	require.Eventually(t, func() bool {
		var err error
		st, err = q.StatsJob(id)
		return err == nil && st.State == want
	}, ioTimeout, time.Millisecond, "job %d never %v", id, want)
	return st
}

func TestWorkerDeletesOnSuccess(t *testing.T) {
	q := openTest(t, Options{})
	got := make(chan string, 10)
	startTestWorker(t, q, func(_ context.Context, j Job) error {
		got <- string(j.Body)
		return nil
	}, WorkerOptions{Tubes: []string{"w"}, Concurrency: 3})
	for _, b := range []string{"a", "b", "c", "d"} {
		_, err := q.Put(bg(), "w", []byte(b), PutOptions{})
		require.NoError(t, err)
	}
	var bodies []string
	for range 4 {
		bodies = append(bodies, <-got)
	}
	assert.ElementsMatch(t, []string{"a", "b", "c", "d"}, bodies)
	require.Eventually(t, func() bool { return q.Stats().TotalJobs == 4 && q.Stats().Reserved == 0 && q.Stats().Ready == 0 },
		ioTimeout, time.Millisecond)
}

func TestWorkerRetriesThenBuries(t *testing.T) {
	q := openTest(t, Options{})
	var calls atomic.Int32
	var delays []time.Duration
	startTestWorker(t, q, func(context.Context, Job) error {
		calls.Add(1)
		return errors.New("flaky backend")
	}, WorkerOptions{Tubes: []string{"w"}, MaxFailures: 3, Backoff: func(n int) time.Duration {
		delays = append(delays, time.Duration(n)) // only the worker goroutine calls it
		return 0                                  // ready at once: no clock to wait for
	}})
	id, err := q.Put(bg(), "w", []byte("x"), PutOptions{Pri: 11})
	require.NoError(t, err)
	st := jobState(t, q, id, jobs.Buried)
	assert.Equal(t, int32(3), calls.Load())
	assert.Equal(t, uint32(2), st.Releases, "released after failures 1 and 2, buried on the 3rd")
	assert.Equal(t, uint32(11), st.Pri, "the priority is kept")
	assert.Equal(t, []time.Duration{1, 2}, delays)
}

// Failures are the job's releases plus timeouts, which the queue keeps (and
// a persistent queue journals): a job that has failed before the worker
// started, here through a remote-like session, counts them.
func TestWorkerCountsEarlierFailures(t *testing.T) {
	q, clk := openManual(t)
	id, err := q.Put(bg(), "w", []byte("x"), PutOptions{TTR: time.Second})
	require.NoError(t, err)
	job, err := q.TryReserve("w")
	require.NoError(t, err)
	require.NoError(t, job.Release(bg(), 0, 0)) // failure 1
	_, err = q.TryReserve("w")
	require.NoError(t, err)
	clk.Advance(2 * time.Second) // failure 2: the TTR runs out
	q.Jobs().Tick()
	jobState(t, q, id, jobs.Ready)

	startTestWorker(t, q, func(context.Context, Job) error { return errors.New("no") },
		WorkerOptions{Tubes: []string{"w"}, MaxFailures: 3})
	st := jobState(t, q, id, jobs.Buried)
	assert.Equal(t, uint32(1), st.Releases)
	assert.Equal(t, uint32(1), st.Timeouts)
}

func TestWorkerBuriesOnPanic(t *testing.T) {
	q := openTest(t, Options{})
	startTestWorker(t, q, func(context.Context, Job) error { panic("boom") },
		WorkerOptions{Tubes: []string{"w"}, Logger: testLogger(t)})
	id, err := q.Put(bg(), "w", []byte("x"), PutOptions{})
	require.NoError(t, err)
	st := jobState(t, q, id, jobs.Buried)
	assert.Zero(t, st.Releases)
}

func TestWorkerHandlerFinishesJobItself(t *testing.T) {
	q := openTest(t, Options{})
	startTestWorker(t, q, func(ctx context.Context, j Job) error {
		return j.Bury(ctx, 77)
	}, WorkerOptions{Tubes: []string{"w"}})
	id, err := q.Put(bg(), "w", []byte("x"), PutOptions{})
	require.NoError(t, err)
	st := jobState(t, q, id, jobs.Buried)
	assert.Equal(t, uint32(77), st.Pri)
	assert.Equal(t, uint32(1), st.Buries)
}

// A handler that runs long gets its job touched each half TTR: the touch
// timer is driven by the test, and the job's time left is read on the
// queue's manual clock.
func TestWorkerTouchesLongJobs(t *testing.T) {
	q, clk := openManual(t)
	ticks := make(chan chan time.Time, 1)
	release := make(chan struct{})
	startTestWorker(t, q, func(context.Context, Job) error {
		<-release
		return nil
	}, WorkerOptions{Tubes: []string{"w"}}, func(w *Worker) {
		w.after = func(d time.Duration) (<-chan time.Time, func() bool) {
			assert.Equal(t, 5*time.Second, d, "half the TTR")
			c := make(chan time.Time, 1)
			ticks <- c
			return c, func() bool { return true }
		}
	})
	id, err := q.Put(bg(), "w", []byte("x"), PutOptions{TTR: 10 * time.Second})
	require.NoError(t, err)
	tick := <-ticks
	clk.Advance(6 * time.Second)
	st, err := q.StatsJob(id)
	require.NoError(t, err)
	require.Equal(t, 4*time.Second, st.TimeLeft)
	tick <- time.Time{}
	<-ticks // the next touch is armed once this one is done
	st, err = q.StatsJob(id)
	require.NoError(t, err)
	assert.Equal(t, 10*time.Second, st.TimeLeft, "touched: a fresh TTR")
	close(release)
	require.Eventually(t, func() bool { _, err := q.StatsJob(id); return errors.Is(err, ErrNotFound) },
		ioTimeout, time.Millisecond)
}

func TestWorkerStopWaitsForHandlers(t *testing.T) {
	q := openTest(t, Options{})
	started, release := make(chan struct{}), make(chan struct{})
	w := startTestWorker(t, q, func(context.Context, Job) error {
		close(started)
		<-release
		return nil
	}, WorkerOptions{Tubes: []string{"w"}, Concurrency: 2})
	id, err := q.Put(bg(), "w", []byte("x"), PutOptions{})
	require.NoError(t, err)
	<-started
	stopped := make(chan error, 1)
	go func() { stopped <- w.Stop(bg()) }()
	select {
	case err := <-stopped:
		t.Fatalf("Stop returned while a handler ran: %v", err)
	case <-w.Done():
		t.Fatal("the worker ended while a handler ran")
	default:
	}
	close(release)
	require.NoError(t, <-stopped)
	_, err = q.StatsJob(id)
	assert.ErrorIs(t, err, ErrNotFound, "the in-flight job was finished")
	// The stopped worker took nothing more.
	id2, err := q.Put(bg(), "w", []byte("y"), PutOptions{})
	require.NoError(t, err)
	st, err := q.StatsJob(id2)
	require.NoError(t, err)
	assert.Equal(t, jobs.Ready, st.State)
	assert.Zero(t, q.Stats().Waiting)
}

func TestWorkerStopDeadlineCancelsHandlers(t *testing.T) {
	q := openTest(t, Options{})
	started := make(chan struct{})
	w := startTestWorker(t, q, func(ctx context.Context, _ Job) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	}, WorkerOptions{Tubes: []string{"w"}})
	id, err := q.Put(bg(), "w", []byte("x"), PutOptions{})
	require.NoError(t, err)
	<-started
	ctx, cancel := context.WithCancel(bg())
	cancel()
	assert.ErrorIs(t, w.Stop(ctx), context.Canceled)
	<-w.Done()
	st := jobState(t, q, id, jobs.Ready)
	assert.Zero(t, st.Releases, "cut off by Stop: not a failure")
}

func TestStartWorkerValidates(t *testing.T) {
	q := openTest(t, Options{})
	_, err := q.StartWorker(nil, WorkerOptions{})
	assert.Error(t, err)
	_, err = q.StartWorker(func(context.Context, Job) error { return nil }, WorkerOptions{Tubes: []string{"-x"}})
	assert.ErrorIs(t, err, ErrBadTubeName)
	w, err := q.StartWorker(func(context.Context, Job) error { return nil }, WorkerOptions{})
	require.NoError(t, err)
	require.NoError(t, w.Stop(bg()))
	require.NoError(t, w.Stop(bg()), "Stop is idempotent")
}

func TestDefaultBackoff(t *testing.T) {
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second,
		16 * time.Second, 32 * time.Second, time.Minute, time.Minute}
	for i, d := range want {
		assert.Equal(t, d, defaultBackoff(i+1), "failure %d", i+1)
	}
	assert.Equal(t, time.Minute, defaultBackoff(1000))
}

func TestLatencyHistogram(t *testing.T) {
	var h latencyHist
	for v := range 1000 {
		h.add(time.Duration(v * 1000)) // 0 .. 999µs
	}
	for _, c := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 500 * time.Microsecond}, {0.99, 990 * time.Microsecond}} {
		got := h.quantile(c.q)
		assert.InEpsilon(t, float64(c.want), float64(got), 0.07, "q%.2f = %v", c.q, got)
	}
	for v := uint64(0); v < 1<<20; v = v*3 + 1 {
		i := histBucket(v)
		assert.GreaterOrEqual(t, histUpper(i), v, "bucket %d of %d", i, v)
		if i > 0 {
			assert.Less(t, histUpper(i-1), v, "bucket %d of %d", i, v)
		}
	}
}
