package embed

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rs/zerolog"
)

// Handler processes one job. Returning nil deletes the job; an error
// counts as a failure (see WorkerOptions.MaxFailures); a panic buries the
// job at once. A handler may finish the job itself (Delete, Release, Bury),
// and the worker then leaves it alone. ctx ends when the worker is stopped
// and its Stop deadline has passed.
type Handler func(ctx context.Context, job Job) error

// Defaults of WorkerOptions.
const (
	DefaultMaxFailures = 5
	DefaultBackoffMax  = time.Minute
)

// WorkerOptions configure a Worker. The zero value is usable: one handler
// at a time on the tube "default", buried on the fifth failure, backoff
// 1s, 2s, 4s, ... capped at a minute. StartWorker copies it.
type WorkerOptions struct {
	// Tubes to take jobs from; empty means "default".
	Tubes []string
	// Concurrency is how many handlers run at once; 0 means 1.
	Concurrency int
	// MaxFailures buries a job on its MaxFailures-th failure; 0 means
	// DefaultMaxFailures, negative never buries. Failures are counted by
	// the queue itself: the job's releases plus timeouts (TTRs that ran
	// out), which the journal keeps across restarts, so a job that keeps
	// crashing the process is buried too. Releases by other clients of the
	// same tube count as well.
	MaxFailures int
	// Backoff returns the delay of the release after failure number n
	// (1-based); nil means 1s doubling up to DefaultBackoffMax.
	Backoff func(n int) time.Duration
	// Logger receives a warning for each panic and failed finish; the zero
	// Logger discards them. Job bodies are never logged.
	Logger zerolog.Logger
}

// Worker runs a Handler over reserved jobs with bounded concurrency,
// touching jobs whose handlers run long, until Stop. Its methods are safe
// for concurrent use.
type Worker struct {
	q    *Queue
	h    Handler
	o    WorkerOptions
	log  zerolog.Logger
	stop context.CancelFunc // ends reserving
	kill context.CancelFunc // ends handlers' contexts (hard stop)
	hctx context.Context
	wg   sync.WaitGroup
	done chan struct{}

	after func(time.Duration) (<-chan time.Time, func() bool) // touch timer; tests replace it
}

// StartWorker starts o.Concurrency goroutines, each reserving a job of
// o.Tubes and running h on it.
func (q *Queue) StartWorker(h Handler, o WorkerOptions) (*Worker, error) {
	if h == nil || o.Concurrency < 0 {
		return nil, errors.New("embed: StartWorker needs a handler and Concurrency >= 0")
	}
	if q.closed.Load() {
		return nil, ErrClosed
	}
	l := q.reservers.Get().(*lease)
	err := l.watch(o.Tubes) // validates the names
	q.reservers.Put(l)
	if err != nil {
		return nil, fmt.Errorf("embed: worker tubes: %w", err)
	}
	w := newWorker(q, h, o.withDefaults())
	w.launch()
	return w, nil
}

func newWorker(q *Queue, h Handler, o WorkerOptions) *Worker {
	w := &Worker{q: q, h: h, o: o, done: make(chan struct{}), after: timerAfter}
	w.log = o.Logger.With().Str("component", "worker").Logger()
	w.hctx, w.kill = context.WithCancel(context.Background())
	return w
}

func (w *Worker) launch() {
	rctx, stop := context.WithCancel(context.Background())
	w.stop = stop
	w.wg.Add(w.o.Concurrency)
	for range w.o.Concurrency {
		go w.loop(rctx)
	}
	go func() { w.wg.Wait(); close(w.done) }()
}

func defaultBackoff(n int) time.Duration {
	if n > 7 {
		return DefaultBackoffMax
	}
	return min(time.Second<<max(n-1, 0), DefaultBackoffMax)
}

func timerAfter(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// loop reserves and handles jobs until rctx ends or the queue closes.
func (w *Worker) loop(rctx context.Context) {
	defer w.wg.Done()
	for {
		job, err := w.q.Reserve(rctx, w.o.Tubes...)
		if err != nil {
			if rctx.Err() == nil && !errors.Is(err, ErrClosed) {
				w.log.Error().Err(err).Msg("reserve failed; worker goroutine stops")
			}
			return
		}
		w.handle(job)
	}
}

// Stop stops reserving and waits for the handlers running to finish. If
// ctx ends first, it cancels the handlers' context and returns ctx.Err();
// jobs whose handlers then return with an error go back to ready without
// counting as failures. Stop is idempotent.
func (w *Worker) Stop(ctx context.Context) error {
	w.stop()
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		w.kill()
		return ctx.Err()
	}
}

// Done is closed once every goroutine of the worker has returned.
func (w *Worker) Done() <-chan struct{} { return w.done }

// withDefaults fills the options left zero: one goroutine,
// DefaultMaxFailures, the default backoff.
func (o WorkerOptions) withDefaults() WorkerOptions {
	o.Concurrency = max(o.Concurrency, 1)
	if o.MaxFailures == 0 {
		o.MaxFailures = DefaultMaxFailures
	}
	if o.Backoff == nil {
		o.Backoff = defaultBackoff
	}
	return o
}
