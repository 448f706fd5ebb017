package engine

import (
	"sync/atomic"
	"time"
)

// Idle connections (Config.IdleTimeout). A connection is idle when it has
// sent nothing for the timeout, except while a reserve of its own waits: a
// worker blocked in reserve is not idle, and its idle time starts again when
// the reserve ends. The sweeper goroutine reads the stamps the event loops
// publish and wakes the connections that look idle; each one re-checks on
// its own loop (new input may have arrived meanwhile) and closes itself.
// Nothing of this runs, per command or otherwise, with IdleTimeout 0.

// idleState is a connection's part of the idle check. stamp and reserving
// are written by the connection's event loop and read by the sweeper; check
// is set by the sweeper and cleared by the loop.
type idleState struct {
	stamp     atomic.Int64 // server clock (ns) of the last input or reserve end
	reserving atomic.Bool  // a reserve is pending
	check     atomic.Bool  // the sweeper asks the loop to look
	leftover  int          // input buffered at the end of the last serve (loop only)
}

// minIdleSweep bounds how soon the sweeper looks again, so that a
// connection found active at its deadline does not make it spin.
const minIdleSweep = 10 * time.Millisecond

// noteInput runs at the start of serve: new input restarts the idle time.
func (cn *conn) noteInput() {
	if n := cn.gc.InboundBuffered(); n > cn.idle.leftover {
		cn.idle.stamp.Store(cn.srv.now())
	}
}

// noteState runs at the end of serve: it publishes whether a reserve is
// pending, and restarts the idle time when one has just ended.
func (cn *conn) noteState() {
	if cn.closed {
		return
	}
	cn.idle.leftover = cn.gc.InboundBuffered()
	if cn.idle.reserving.Load() != cn.waiting {
		cn.idle.reserving.Store(cn.waiting)
		if !cn.waiting {
			cn.idle.stamp.Store(cn.srv.now())
			kick(cn.srv.reg.idleKick) // idle again: a deadline to plan
		}
	}
}

// idleNow reports, on the connection's loop, whether the sweeper's request
// to close it still holds.
func (cn *conn) idleNow() bool {
	if !cn.idle.check.Swap(false) || cn.waiting {
		return false
	}
	return cn.srv.now()-cn.idle.stamp.Load() >= int64(cn.srv.cfg.IdleTimeout)
}

// sweepIdle runs until Stop: it wakes the connections that look idle, then
// sleeps until the earliest moment another one could be (with no candidate,
// until a connection opens or a reserve ends).
func (s *Server) sweepIdle() {
	timeout := int64(s.cfg.IdleTimeout)
	for {
		var c <-chan time.Time
		stop := func() bool { return false }
		if next, ok := s.reg.wakeIdle(s.now(), timeout); ok {
			c, stop = s.arm(max(time.Duration(next-s.now()), minIdleSweep))
		}
		s.sweeps.Add(1)
		select {
		case <-s.stopCh:
			stop()
			return
		case <-c:
		case <-s.reg.idleKick:
			stop()
		}
	}
}

// wakeIdle wakes every connection idle since before now-timeout, and
// returns the earliest idle deadline of the others that could become idle
// (not reserving); ok is false when there is none.
func (r *registry) wakeIdle(now, timeout int64) (next int64, ok bool) {
	r.mu.Lock()
	var cs []*conn
	for _, cn := range r.all {
		if cn.idle.reserving.Load() {
			continue
		}
		deadline := cn.idle.stamp.Load() + timeout
		if deadline <= now {
			cs = append(cs, cn)
		} else if !ok || deadline < next {
			next, ok = deadline, true
		}
	}
	r.mu.Unlock()
	for _, cn := range cs {
		cn.idle.check.Store(true)
		_ = cn.gc.Wake(nil)
	}
	return next, ok
}

// closeIdle logs the closing of an idle connection.
func (s *Server) closeIdle(cn *conn) {
	if s.verbose >= 1 {
		s.log.Debug().Int("fd", int(cn.fd)).Float64("idle_timeout_ms", float64(s.cfg.IdleTimeout)/float64(time.Millisecond)).
			Msg("closing an idle connection")
	}
}
