package embed

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/engine/internal/commit"
	"github.com/stalkd/stalkd/engine/internal/memreturn"
	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal"
)

// DefaultTTR is the time-to-run of a job put with a zero PutOptions.TTR
// when Options.DefaultTTR is zero too.
const DefaultTTR = time.Minute

// Options configures Open. The zero value is usable: an in-memory queue
// on the system clock, bodies up to DefaultMaxJobSize bytes, a one-minute
// default TTR. Open copies the value and never modifies it.
type Options struct {
	// Dir makes the queue persistent: its journal lives in this directory,
	// which must exist, and jobs found there are loaded by Open. A
	// directory holding beanstalkd's binlog (and no journal yet) is
	// imported first (wal.ImportBinlog); one holding files the journal
	// does not recognise is refused (wal.ErrForeignFiles). Empty keeps
	// every job in memory.
	Dir string
	// SyncInterval is the fsync policy of a persistent queue (the server's
	// -f): zero means a change is acknowledged only after the fsync that
	// covers it (-f0, the safest); a positive value acknowledges once the
	// change is written to the OS and fsyncs within that interval.
	SyncInterval time.Duration
	// NoSync acknowledges once written to the OS and leaves fsync to the
	// OS (the server's -F).
	NoSync bool
	// SegmentSize is the journal's file size in bytes; zero means
	// wal.DefaultSegmentSize.
	SegmentSize int64
	// Salvage opens a journal damaged in the middle, keeping what is
	// readable (see wal.Options.Salvage).
	Salvage bool
	// MaxJobSize is the largest body Put accepts, in bytes: zero means
	// DefaultMaxJobSize; it must not exceed MaxJobSizeLimit. A node serving
	// the queue (package engine/node) uses it for the network too unless
	// its Config says otherwise.
	MaxJobSize int
	// DefaultTTR replaces a zero PutOptions.TTR; zero means DefaultTTR.
	DefaultTTR time.Duration
	// Clock supplies time; nil means the system clock. Tests pass a
	// jobs.ManualClock and drive timers with Jobs().Tick().
	Clock jobs.Clock
	// Logger receives the journal's and the workers' logs; the zero Logger
	// discards them.
	Logger zerolog.Logger
	// Policies are tube policies (policy.go) that Open applies, by tube
	// name, after loading the journal: they replace what it held for those
	// tubes, and leave other tubes' policies as they were. Open checks them
	// all first and applies none if one is refused.
	Policies map[string]Policy
}

// validate returns o with defaults filled in, or why it is unusable.
func (o Options) validate() (Options, error) {
	switch {
	case o.MaxJobSize < 0 || o.MaxJobSize > codec.MaxJobSizeLimit:
		return o, fmt.Errorf("embed: MaxJobSize %d outside 0..%d", o.MaxJobSize, codec.MaxJobSizeLimit)
	case o.SyncInterval < 0 || o.DefaultTTR < 0 || o.SegmentSize < 0:
		return o, errors.New("embed: negative SyncInterval, DefaultTTR or SegmentSize")
	case o.Dir == "" && (o.SyncInterval != 0 || o.NoSync || o.SegmentSize != 0 || o.Salvage):
		return o, errors.New("embed: SyncInterval, NoSync, SegmentSize and Salvage need a Dir")
	}
	if err := validatePolicies(o.Policies); err != nil {
		return o, err
	}
	size, _ := codec.MaxJobSize(uint32(o.MaxJobSize)) // in range: checked above
	o.MaxJobSize = int(size)
	if o.DefaultTTR == 0 {
		o.DefaultTTR = DefaultTTR
	}
	return o, nil
}

// Queue is a job queue embedded in a Go program: in memory or persistent,
// used in-process through blocking, context-aware calls, and optionally
// served on the network at the same time (node.Start with Config.Queue, in
// package engine/node). It wraps a jobs.Queue (Jobs) and, when persistent,
// a wal.Log; a node serving it serves the same queue, not a second one.
//
// Tube names are strings, bodies are plain bytes (the wire's CRLF is added
// and stripped here), errors are the sentinels below and jobs'.
//
// Concurrency: every method is safe for concurrent use by any number of
// goroutines. In-process callers appear in the stats as connections (one
// per goroutine busy in the queue, plus a few pooled idle ones).
type Queue struct {
	opts    Options
	jq      *jobs.Queue
	log     *wal.Log // nil in memory
	commits commit.Waiter

	producers sync.Pool // *lease: sessions for put, peek-*, kick, delete
	reservers sync.Pool // *lease: sessions for reserve

	lastSeq atomic.Uint64 // the highest sequence number handed out (Sync)

	closed    atomic.Bool
	closing   chan struct{} // closed by Close: blocked calls return ErrClosed
	stopRun   context.CancelFunc
	runDone   chan struct{}
	closeOnce sync.Once
	closeErr  error

	closersMu sync.Mutex
	closers   []func() // OnClose's, run first by Close
}

// Open creates a queue: in memory, or (with o.Dir) persistent, loading the
// jobs its journal holds. It starts the queue's timers; Close stops them.
func Open(o Options) (*Queue, error) {
	o, err := o.validate()
	if err != nil {
		return nil, err
	}
	if o.Dir == "" {
		return withPolicies(start(o, jobs.New(jobs.Config{Clock: o.Clock}), nil, nil))
	}
	walLog := o.Logger.With().Str("component", "wal").Logger()
	if _, err := wal.ImportBinlog(o.Dir, wal.ImportOptions{SegmentSize: o.SegmentSize, Logger: walLog}); err != nil {
		return nil, err
	}
	l, err := wal.Open(o.Dir, wal.Options{
		SyncInterval: o.SyncInterval, NoSync: o.NoSync, SegmentSize: o.SegmentSize,
		Salvage: o.Salvage, Logger: walLog,
	})
	if err != nil {
		return nil, err
	}
	jq := jobs.New(jobs.Config{Clock: o.Clock, Journal: l})
	if err := l.Replay(jq); err != nil {
		_ = l.Close()
		return nil, err
	}
	return withPolicies(start(o, jq, l, l.Subscribe))
}

// start wraps jq (whose journal, if any, has been replayed) and drives its
// timers. subscribe is the journal's Subscribe (nil in memory).
func start(o Options, jq *jobs.Queue, l *wal.Log, subscribe func(func())) *Queue {
	q := &Queue{opts: o, jq: jq, log: l, closing: make(chan struct{}), runDone: make(chan struct{})}
	q.commits.Init(jq, ErrClosed)
	if subscribe != nil {
		subscribe(q.commits.Notify)
	}
	q.producers.New = func() any { return q.newLease() }
	q.reservers.New = func() any { return q.newLease() }
	ctx, cancel := context.WithCancel(context.Background())
	q.stopRun = cancel
	memreturn.Watch(jq, q.closing)
	go func() {
		defer close(q.runDone)
		jq.Run(ctx)
	}()
	return q
}

// Jobs returns the queue core, for what this layer does not wrap (drain
// mode, ticks of a manual clock). Its methods are safe for concurrent use.
func (q *Queue) Jobs() *jobs.Queue { return q.jq }

// Close runs the functions given to OnClose (a node serving the queue
// stops at once: stop it yourself first for a graceful stop), ends every
// blocked call with ErrClosed, stops the timers and closes the journal,
// which writes and fsyncs everything first. Jobs reserved in-process stay
// as they are in the journal (a reserved job comes back ready). Close is
// idempotent; calls after it fail with ErrClosed.
func (q *Queue) Close() error {
	q.closeOnce.Do(func() {
		q.closed.Store(true)
		close(q.closing)
		q.closersMu.Lock()
		closers := q.closers
		q.closers = nil
		q.closersMu.Unlock()
		for _, f := range closers {
			f()
		}
		q.stopRun()
		<-q.runDone
		if q.log != nil {
			q.closeErr = q.log.Close()
		}
	})
	return q.closeErr
}

// OnClose registers f to run at the start of Close, before the queue stops
// (a node serving the queue registers its immediate stop). It returns
// ErrClosed, and does not register f, once Close has begun. f runs once,
// on Close's goroutine; it must not call Close. Safe for concurrent use.
func (q *Queue) OnClose(f func()) error {
	q.closersMu.Lock()
	defer q.closersMu.Unlock()
	if q.closed.Load() {
		return ErrClosed
	}
	q.closers = append(q.closers, f)
	return nil
}

// Options returns the options the queue was opened with, defaults filled
// in (MaxJobSize and DefaultTTR are never zero). Safe for concurrent use.
func (q *Queue) Options() Options { return q.opts }

// Journal returns the write-ahead log of a persistent queue, nil in
// memory: for its figures (Stats, Metrics) and commit subscriptions. The
// Queue owns it: do not close it. Safe for concurrent use.
func (q *Queue) Journal() *wal.Log { return q.log }
