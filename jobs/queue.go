package jobs

import (
	"sync/atomic"
	"time"
)

// Config configures a Queue. The zero value is usable: the system clock, no
// journal (everything in memory). A Config is read once by New.
type Config struct {
	// Clock supplies time; nil means NewSystemClock().
	Clock Clock
	// Journal makes changes durable; nil keeps the queue in memory only.
	Journal Journal
	// Replicated logs reservations too, for a journal that others rebuild
	// the queue from (see restore.go).
	Replicated bool
}

// Queue is the whole job store: tubes, jobs, sessions and timers. All of its
// methods are safe for concurrent use. Timers (delays, TTRs, pauses, reserve
// timeouts) fire only when something drives them: Run with the system clock,
// or Tick after moving a ManualClock in tests.
type Queue struct {
	clock      Clock
	journal    Journal
	ids        IDSource // the journal, when it hands out ids itself
	flusher    Flusher  // the journal, when its callers write its records
	fencer     Fencer   // the journal, when reads must wait for a fence
	replicated bool

	nextID   atomic.Uint64 // the next id to hand out
	sessions atomic.Uint64 // session ids
	draining atomic.Bool

	tubes   registry
	pols    policies
	jobs    index
	stats   counters
	timers  timers
	defTube *tube
	// defWatch is the watch list of every session that has not changed
	// its own: just defTube. Shared and immutable (see Session.watch).
	defWatch [1]*tube
}

// New returns an empty queue with the tube "default".
func New(cfg Config) *Queue {
	q := &Queue{clock: cfg.Clock, journal: cfg.Journal, replicated: cfg.Replicated}
	if q.clock == nil {
		q.clock = NewSystemClock()
	}
	q.ids, _ = cfg.Journal.(IDSource)
	q.flusher, _ = cfg.Journal.(Flusher)
	q.fencer, _ = cfg.Journal.(Fencer)
	q.nextID.Store(1)
	q.tubes.byName = make(map[string]*tube)
	q.pols.byName = make(map[string]*policyEntry)
	q.tubes.policyOf = q.pols.lookup
	q.jobs.init()
	q.timers.init(q.clock.Now())
	q.defTube = q.tubes.acquire([]byte("default")) // never released
	q.defWatch[0] = q.defTube
	return q
}

// NextID spends and returns a job id. The protocol spends an id as soon as
// a put line parses, even if the job never arrives. With a journal that is
// an IDSource, the journal hands it out.
func (q *Queue) NextID() uint64 {
	if q.ids != nil {
		return q.ids.NextID()
	}
	return q.nextID.Add(1) - 1
}

// EnsureNextID makes sure no id below next is ever handed out again (used by
// the journal after a restart).
func (q *Queue) EnsureNextID(next uint64) {
	if q.ids != nil {
		q.ids.EnsureNextID(next)
		return
	}
	for {
		cur := q.nextID.Load()
		if cur >= next || q.nextID.CompareAndSwap(cur, next) {
			return
		}
	}
}

// SetDraining turns drain mode on or off: while on, Put fails with
// ErrDraining (after spending the id).
func (q *Queue) SetDraining(on bool) { q.draining.Store(on) }

// Draining reports whether drain mode is on.
func (q *Queue) Draining() bool { return q.draining.Load() }

// Committed reports whether the change numbered seq (as returned by a
// mutating Session method) may be acknowledged, and the journal's error if it
// never will be. seq 0 is always committed.
func (q *Queue) Committed(seq uint64) (done bool, err error) {
	if seq == 0 || q.journal == nil {
		return true, nil
	}
	c, err := q.journal.Committed()
	if seq <= c {
		return true, nil
	}
	return err != nil, err
}

// append logs rec if the queue has a journal. Called with the tube lock of
// the job held, before the change is made, so that a refused record leaves
// the queue as it was.
func (q *Queue) append(rec Record) (uint64, error) {
	if q.journal == nil {
		return 0, nil
	}
	return q.journal.Append(rec)
}

// releaseTube drops a reference to t and cleans up after its removal.
func (q *Queue) releaseTube(t *tube) {
	if q.tubes.release(t) {
		q.timers.cancelTube(t)
	}
}

func durationOf(ns int64) time.Duration { return time.Duration(ns) }

const second = int64(time.Second)

// Clock tells the queue what time it is, in nanoseconds on a Unix-epoch
// scale. It must never go backwards: timers, TTRs and delays are measured on
// it. Now is called from many goroutines at once.
type Clock interface {
	Now() int64
}

// SystemClock is the real clock: wall time read once at start, advanced by
// the monotonic clock, so that a wall-clock jump neither fires nor stalls a
// timer.
type SystemClock struct{ base time.Time }

// NewSystemClock returns a Clock anchored at the current wall time.
func NewSystemClock() *SystemClock { return &SystemClock{base: time.Now()} }

// Now implements Clock.
func (c *SystemClock) Now() int64 {
	return c.base.UnixNano() + int64(time.Since(c.base))
}

// ManualClock is a Clock for tests: it moves only when told. Safe for
// concurrent use.
type ManualClock struct{ now atomic.Int64 }

// NewManualClock returns a ManualClock that reads start.
func NewManualClock(start int64) *ManualClock {
	c := &ManualClock{}
	c.now.Store(start)
	return c
}

// Now implements Clock.
func (c *ManualClock) Now() int64 { return c.now.Load() }

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) { c.now.Add(int64(d)) }
