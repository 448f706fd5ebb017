package jobs

import (
	"sync/atomic"
	"time"
)

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
