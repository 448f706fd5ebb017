package engine

import (
	"net"

	"github.com/panjf2000/gnet/v2"
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
	ad, _ := gc.Context().(*adoption) // set by Adopt
	if h.s.stopping.Load() {
		gc.SetContext(nil)
		if ad != nil {
			h.s.openAdopted(gc, ad, nil)
		}
		return nil, gnet.Close
	}
	cn := h.s.openConn(gc, gc.Fd(), gc.RemoteAddr(), false)
	gc.SetContext(cn)
	if ad != nil {
		h.s.openAdopted(gc, ad, cn)
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

// OnClose ends the connection (see conn.end).
func (h *handler) OnClose(gc gnet.Conn, err error) gnet.Action {
	h.s.open.Add(-1) // every connection was counted by admit
	if cn, _ := gc.Context().(*conn); cn != nil {
		cn.end(err)
	}
	return gnet.None
}

// openConn sets up a new connection's state and session, on the goroutine
// that will own it (a gnet event loop, or a TLS connection's own).
//
// certified: the client presented a certificate verified against the
// client CA (mutual TLS), which stands in for an auth token.
func (s *Server) openConn(t transport, fd int, remote net.Addr, certified bool) *conn {
	cn := &conn{srv: s, gc: t, fd: int32(fd)}
	cn.authed = len(s.tokens) == 0 || certified
	cn.idle.stamp.Store(s.now())
	s.reg.add(cn)
	if s.cfg.IdleTimeout > 0 {
		kick(s.reg.idleKick)
	}
	cn.sess = s.queue.NewSessionWaker(cn) // a closure would cost an allocation per connection
	if s.verbose >= 1 {
		s.log.Debug().Int("fd", fd).Stringer("remote_addr", remote).Msg("accept")
	}
	return cn
}

// end ends the session: its reserved jobs go back to ready and a pending
// reserve is cancelled. After an end of input, what the client pipelined
// before it is answered first, as the reference does.
func (cn *conn) end(err error) {
	s := cn.srv
	if cn.closed {
		return
	}
	if !cn.inServe && isEOF(err) && !s.stopping.Load() {
		cn.answerAtEOF()
	}
	cn.closed = true
	if cn.rx != nil {
		s.putRx(cn.rx)
		cn.rx = nil
	}
	cn.released()
	cn.sess.Close()
	s.reg.remove(cn)
	s.endAdopted(cn)
	if s.verbose >= 1 {
		ev := s.log.Debug().Int("fd", int(cn.fd))
		if err != nil && !isEOF(err) {
			ev = ev.Err(err)
		}
		ev.Msg("close")
	}
}
