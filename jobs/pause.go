package jobs

import "time"

// PauseTube stops reserve from taking jobs of the tube called name for d. A
// zero d pauses for one nanosecond (waiters are served on the next tick).
// Pauses are not persisted, and vanish with the tube.
func (q *Queue) PauseTube(name []byte, d time.Duration) error {
	if !validName(name) {
		return ErrBadTubeName
	}
	t := q.tubes.find(name)
	if t == nil {
		return ErrNotFound
	}
	if d <= 0 {
		d = 1
	}
	t.mu.Lock()
	t.pause = int64(d)
	t.unpauseAt = q.clock.Now() + int64(d)
	t.pauses++
	q.timers.scheduleTube(t, t.unpauseAt)
	t.mu.Unlock()
	return nil
}
