package engine

import (
	"github.com/panjf2000/gnet/v2"

	"github.com/stalkd/stalkd/codec"
)

// handler is the gnet event handler of a Server. gnet calls OnOpen,
// OnTraffic and OnClose on the event loop that owns the connection. gnet's
// ticker is not used (see nudge.go).
type handler struct {
	gnet.BuiltinEventEngine
	s *Server
}

// OnOpen sets up a new connection's state and session.
func (h *handler) OnOpen(gc gnet.Conn) ([]byte, gnet.Action) {
	s := h.s
	if s.stopping.Load() {
		return nil, gnet.Close
	}
	cn := &conn{srv: s, gc: gc, fd: gc.Fd(), dec: codec.NewDecoder(s.cfg.MaxJobSize)}
	cn.idle.stamp.Store(s.now())
	s.reg.add(cn)
	if s.cfg.IdleTimeout > 0 {
		kick(s.reg.idleKick)
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
	h.s.open.Add(-1) // every connection was counted by admit
	cn, _ := gc.Context().(*conn)
	if cn == nil || cn.closed {
		return gnet.None
	}
	if !cn.inServe && isEOF(err) && !h.s.stopping.Load() {
		cn.answerAtEOF()
	}
	cn.closed = true
	cn.released()
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
