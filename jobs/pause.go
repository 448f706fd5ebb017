package jobs

import "time"

// PauseTube stops reserve from taking jobs of the tube called name for d. A
// zero d pauses for one nanosecond (waiters are served on the next tick).
// Pauses are not persisted (but replicated: see PauseTubeSeq), and vanish
// with the tube.
func (q *Queue) PauseTube(name []byte, d time.Duration) error {
	_, err := q.PauseTubeSeq(name, d)
	return err
}

// PauseTubeSeq is PauseTube returning the journal sequence number to wait
// for before answering PAUSED: nonzero only in replicated mode.
func (q *Queue) PauseTubeSeq(name []byte, d time.Duration) (uint64, error) {
	t, err := q.namedTube(name)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		d = 1
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	unpauseAt := q.clock.Now() + int64(d)
	var seq uint64
	if q.replicated {
		var err error
		if seq, err = q.append(Record{Kind: RecPause, Tube: t.name, Delay: d, Deadline: unpauseAt}); err != nil {
			return 0, err
		}
	}
	t.pause = int64(d)
	t.unpauseAt = unpauseAt
	t.pauses++
	q.timers.scheduleTube(t, t.unpauseAt)
	return seq, nil
}
