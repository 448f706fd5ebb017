package engine

import (
	"sync/atomic"
	"time"
)

// Timers of the engine. Nothing in the engine wakes up on a fixed beat:
// the nudger runs only while some connection is stalled (a slow reader)
// or, without a journal subscription, holds replies for a commit; the idle
// sweeper sleeps until the earliest moment a connection could become idle.
// An idle server with no such connection sleeps in epoll and in the queue's
// own timer (jobs.Queue.Run, which sleeps until the next deadline).

// timerFunc arms a one-shot timer: the channel receives once after d, and
// stop disarms it. Tests replace it to count and fire timers by hand.
type timerFunc func(d time.Duration) (c <-chan time.Time, stop func() bool)

func realTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

// timers are the Server's timer seam and its count of armed timers.
type timers struct {
	newTimer timerFunc    // set by Listen; tests replace it before Serve
	armed    atomic.Int64 // timers armed so far (for tests)
	sweeps   atomic.Int64 // rounds of the idle sweeper (for tests)
}

func (t *timers) arm(d time.Duration) (<-chan time.Time, func() bool) {
	t.armed.Add(1)
	return t.newTimer(d)
}

// kick wakes a sleeper without blocking; a kick already pending suffices.
func kick(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// nudge wakes stalled connections (and holding ones without a journal
// subscription) every TickInterval while there are any, and sleeps until
// the registry reports a first one otherwise.
func (s *Server) nudge() {
	for {
		select {
		case <-s.stopCh:
			return
		case <-s.reg.nudgeKick:
		}
		for s.reg.needsNudge() {
			c, stop := s.arm(s.cfg.TickInterval)
			select {
			case <-s.stopCh:
				stop()
				return
			case <-c:
			}
			s.reg.wakeStalled()
		}
	}
}
