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

// idleEvery is how often the sweeper looks: often enough that a connection
// is closed soon after its timeout, rarely enough to cost nothing.
func idleEvery(timeout time.Duration) time.Duration {
	return min(max(timeout/8, 10*time.Millisecond), time.Second)
}

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

// sweepIdle runs until Stop, waking the connections that look idle.
func (s *Server) sweepIdle(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stopCh:
			return
		case <-t.C:
			s.reg.wakeIdle(s.now(), int64(s.cfg.IdleTimeout))
		}
	}
}

// wakeIdle wakes every connection idle since before now-timeout.
func (r *registry) wakeIdle(now, timeout int64) {
	r.mu.Lock()
	var cs []*conn
	for cn := range r.all {
		if !cn.idle.reserving.Load() && now-cn.idle.stamp.Load() >= timeout {
			cs = append(cs, cn)
		}
	}
	r.mu.Unlock()
	for _, cn := range cs {
		cn.idle.check.Store(true)
		_ = cn.gc.Wake(nil)
	}
}

// closeIdle logs the closing of an idle connection.
func (s *Server) closeIdle(cn *conn) {
	if s.verbose >= 1 {
		s.log.Debug().Int("fd", cn.fd).Float64("idle_timeout_ms", float64(s.cfg.IdleTimeout)/float64(time.Millisecond)).
			Msg("closing an idle connection")
	}
}
