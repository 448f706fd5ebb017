package ratelog

import (
	"sync/atomic"
	"time"
)

// Log lets a recurring warning through at most once per interval and
// counts the events in between, so that the line that does get through can
// say how many there were. Safe for concurrent use.
type Log struct {
	Every time.Duration    // 0 means one second
	Now   func() time.Time // nil means time.Now; tests inject a clock
	last  atomic.Int64     // unix nanoseconds of the last line; 0: none yet
	count atomic.Int64     // events since the last line
}

// Event counts one event and calls emit if the last line is old enough.
func (r *Log) Event(emit func()) {
	r.count.Add(1)
	r.Maybe(emit)
}

// Add counts n events without trying to log.
func (r *Log) Add(n int64) { r.count.Add(n) }

// Maybe calls emit if the last line is old enough.
func (r *Log) Maybe(emit func()) {
	now := time.Now
	if r.Now != nil {
		now = r.Now
	}
	every := r.Every
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

// Take returns the events counted since the last line and resets the count.
func (r *Log) Take() int64 { return r.count.Swap(0) }

// Fired reports whether a line has got through yet.
func (r *Log) Fired() bool { return r.last.Load() != 0 }
