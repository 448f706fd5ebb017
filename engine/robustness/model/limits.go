package model

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Limits bound one Check, in time and in memory. porcupine keeps every
// state it has reached (with the set of operations that led there) for
// the whole search, and a history with many outcomes not known can reach
// very many: without a bound a check can take the machine's memory. A
// check that hits a limit stops and says so (Result.Verdict is
// porcupine.Unknown, Result.Reason why): that is not a pass.
//
// Limits are values; the zero value means the defaults below.
type Limits struct {
	// Within is porcupine's time limit. 0: DefaultWithin.
	Within time.Duration
	// MaxStates is how many possible queues one state (a set, see the
	// package doc) may hold. 0: DefaultMaxStates.
	MaxStates int
	// MaxBytes bounds the memory of the states the search makes, as
	// estimated from their sizes (counted when made, never given back:
	// an upper bound of what porcupine keeps). 0: DefaultMaxBytes.
	MaxBytes int64
}

// The defaults: a check of the suite's short pass takes well under a
// second and a few megabytes; these are far above, and far below what
// would hurt a shared machine.
const (
	DefaultWithin    = 2 * time.Minute
	DefaultMaxStates = 4096
	DefaultMaxBytes  = 256 << 20
)

func (l Limits) orDefaults() Limits {
	if l.Within <= 0 {
		l.Within = DefaultWithin
	}
	if l.MaxStates <= 0 {
		l.MaxStates = DefaultMaxStates
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	return l
}

// budget is one check's account of its limits, shared by the goroutines
// porcupine runs (one per partition). Once over, every step fails, so that
// porcupine unwinds quickly; the verdict is then not trusted (see Check).
//
// Concurrency: safe for concurrent use.
type budget struct {
	lim      Limits
	perEntry int64 // what porcupine keeps per state besides it: a bitset of the history, a cache entry
	bytes    atomic.Int64
	peak     atomic.Int64 // the largest state set made
	over     atomic.Bool
	once     sync.Once
	reason   string // set once, before over
}

func newBudget(lim Limits, ops int) *budget {
	return &budget{lim: lim.orDefaults(), perEntry: int64(ops/8) + 96}
}

var (
	jobSize   = int64(unsafe.Sizeof(job{}))
	queueSize = int64(unsafe.Sizeof(queue{})) + 24 // the queue, its slice header's allocation rounding
	ptrSize   = int64(unsafe.Sizeof(&queue{}))
)

// spend accounts for the state next, made from prev: the queues it shares
// with prev cost nothing. It reports false once a limit is passed.
func (b *budget) spend(prev, next states) bool {
	if b == nil {
		return true
	}
	if b.over.Load() {
		return false
	}
	if len(next) > b.lim.MaxStates {
		b.stop(fmt.Sprintf("a state held %d possible queues, over the cap of %d", len(next), b.lim.MaxStates))
		return false
	}
	b.notePeak(int64(len(next)))
	cost := b.perEntry + int64(len(next))*ptrSize
	for _, q := range next {
		if !shared(q, prev) {
			cost += queueSize + int64(cap(q.jobs))*jobSize
		}
	}
	if b.bytes.Add(cost) > b.lim.MaxBytes {
		b.stop(fmt.Sprintf("the search made more than %.1f MB of states, over the cap", float64(b.lim.MaxBytes)/(1<<20)))
		return false
	}
	return true
}

// notePeak raises peak to n.
func (b *budget) notePeak(n int64) {
	for {
		p := b.peak.Load()
		if n <= p || b.peak.CompareAndSwap(p, n) {
			return
		}
	}
}

func shared(q *queue, prev states) bool {
	for _, p := range prev {
		if p == q {
			return true
		}
	}
	return false
}

func (b *budget) stop(reason string) {
	b.once.Do(func() {
		b.reason = reason
		b.over.Store(true)
	})
}

// stopped returns why the check was stopped, or "".
func (b *budget) stopped() string {
	if b == nil || !b.over.Load() {
		return ""
	}
	return b.reason
}
