package engine

import (
	"time"

	"github.com/panjf2000/gnet/v2"

	"github.com/stalkd/stalkd/codec"
)

// handler is the gnet event handler of a Server. gnet calls OnOpen,
// OnTraffic and OnClose on the event loop that owns the connection, OnBoot
// once before the loops start, and OnTick from its ticker goroutine.
type handler struct {
	gnet.BuiltinEventEngine
	s *Server
}

// OnBoot records the bound address, reports that the socket is ready, and
// holds the loops back until Serve (or Stop) says what to do.
func (h *handler) OnBoot(eng gnet.Engine) gnet.Action {
	s := h.s
	s.eng = eng
	if a, err := boundAddr(eng); err == nil {
		s.addr = a
	} else {
		s.log.Warn().Err(err).Msg("cannot read the bound address")
	}
	close(s.booted)
	select {
	case <-s.serveCh:
		s.log.Info().Stringer("addr", s.addr).Int("pid", s.proc.pid).Str("version", Version).Str("protocol", s.proc.version).
			Msg("listening")
		return gnet.None
	case <-s.abortCh:
		return gnet.Shutdown
	}
}

// OnOpen sets up a new connection's state and session.
func (h *handler) OnOpen(gc gnet.Conn) ([]byte, gnet.Action) {
	s := h.s
	if s.stopping.Load() {
		return nil, gnet.Close
	}
	cn := &conn{srv: s, gc: gc, fd: gc.Fd(), dec: codec.NewDecoder(s.cfg.MaxJobSize)}
	if n := s.reg.add(cn); s.cfg.MaxConns > 0 && n > s.cfg.MaxConns {
		s.reg.remove(cn)
		if s.refusals.Add(1) == 1 || s.verbose > 0 {
			s.log.Warn().Int("max", s.cfg.MaxConns).Msg("too many connections; closing new ones")
		}
		return nil, gnet.Close
	}
	cn.sess = s.queue.NewSession(func() { _ = gc.Wake(nil) })
	gc.SetContext(cn)
	if s.verbose >= 1 {
		s.log.Debug().Int("fd", cn.fd).Stringer("remote", gc.RemoteAddr()).Msg("accept")
	}
	return nil, gnet.None
}

// OnTraffic runs when input arrives or the connection is woken.
func (h *handler) OnTraffic(gc gnet.Conn) gnet.Action {
	cn, _ := gc.Context().(*conn)
	if cn == nil || cn.closed {
		return gnet.Close
	}
	return cn.serve()
}

// OnClose ends the session: its reserved jobs go back to ready and a pending
// reserve is cancelled. After an end of input, what the client pipelined
// before it is answered first, as the reference does.
func (h *handler) OnClose(gc gnet.Conn, err error) gnet.Action {
	cn, _ := gc.Context().(*conn)
	if cn == nil || cn.closed {
		return gnet.None
	}
	if !cn.inServe && isEOF(err) && !h.s.stopping.Load() {
		cn.answerAtEOF()
	}
	cn.closed = true
	cn.sess.Close()
	h.s.reg.remove(cn)
	if h.s.verbose >= 1 {
		ev := h.s.log.Debug().Int("fd", cn.fd)
		if err != nil && !isEOF(err) {
			ev = ev.Err(err)
		}
		ev.Msg("close")
	}
	return gnet.None
}

// OnTick re-examines stalled connections (and, without a journal
// subscription, connections waiting for a commit).
func (h *handler) OnTick() (time.Duration, gnet.Action) {
	s := h.s
	if s.servedFlag.Load() {
		s.reg.wakeStalled(!s.subscribe)
	}
	return s.cfg.TickInterval, gnet.None
}
