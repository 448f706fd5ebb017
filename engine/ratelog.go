package engine

import (
	"sync/atomic"
	"time"
)

// rateLog lets a recurring warning through at most once per interval and
// counts the events in between, so that the line that does get through can
// say how many there were. Safe for concurrent use.
type rateLog struct {
	every time.Duration    // 0 means one second
	now   func() time.Time // nil means time.Now; tests inject a clock
	last  atomic.Int64     // unix nanoseconds of the last line; 0: none yet
	count atomic.Int64     // events since the last line
}

// log counts one event and calls emit if the last line is old enough.
func (r *rateLog) log(emit func()) {
	r.count.Add(1)
	r.maybe(emit)
}

// add counts n events without trying to log.
func (r *rateLog) add(n int64) { r.count.Add(n) }

// maybe calls emit if the last line is old enough.
func (r *rateLog) maybe(emit func()) {
	now := time.Now
	if r.now != nil {
		now = r.now
	}
	every := r.every
	if every <= 0 {
		every = time.Second
	}
	t := now().UnixNano()
	last := r.last.Load()
	if last != 0 && t-last < int64(every) {
		return
	}
	if r.last.CompareAndSwap(last, t) {
		emit()
	}
}

// take returns the events counted since the last line and resets the count.
func (r *rateLog) take() int64 { return r.count.Swap(0) }
