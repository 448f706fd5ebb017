package front

import (
	"net"
)

// Direct connections. While this node leads, a new plain connection is
// offered to the leader's engine in this process (Config.Direct), which
// serves it on its own event loops: no carry, no loopback hop, the cost
// of a single server. When the node stops leading, the engine hands the
// connection back (a Handoff) and the front carries it from there on, to
// the next leader, exactly as it carries a connection after a failover:
// the replies owed are answered INTERNAL_ERROR, the session is replayed,
// and the commands the engine did not run are sent to the new leader.

// Handoff is a connection the leader's engine served directly and gave
// back, with what carrying it on needs. The front owns Conn from then on.
type Handoff struct {
	Conn net.Conn
	// Gen is the generation (raft term) of the engine that served it: the
	// front carries the connection to a leader of another generation.
	Gen uint64
	// Unread is the input the engine received but did not run, in order.
	Unread []byte
	// Skip is how many bytes of the input that follows (Unread, then the
	// socket) end a put the engine had begun; that put is one of Owed.
	Skip int
	// Owed is how many commands the engine took without answering: each
	// is answered INTERNAL_ERROR (their outcome is unknown).
	Owed int
	// Auth is the "auth TOKEN\r\n" line to replay, or nil.
	Auth []byte
	// Use and Watch are the session's tubes (Watch in listing order).
	Use   string
	Watch []string
}

// direct offers c to Config.Direct and reports whether the engine took it.
func (f *Front) direct(c net.Conn) bool {
	if f.cfg.Direct == nil {
		return false
	}
	if _, ok := c.(*net.TCPConn); !ok {
		return false // TLS clients are carried: the engine's loops serve plain TCP only
	}
	f.clients.Add(1)
	if f.cfg.Direct(c, f.handBack) {
		return true
	}
	f.clients.Add(-1)
	return false
}

// handBack is the back of a direct connection: it ended (nil), or the
// engine let go of it and the front carries it on.
func (f *Front) handBack(h *Handoff) {
	if h == nil {
		f.clients.Add(-1)
		return
	}
	if !f.trackServe(h.Conn) {
		_ = h.Conn.Close()
		f.clients.Add(-1)
		return
	}
	go f.resume(h)
}

// resume carries a handed-back connection: the owed replies first, then to
// the next leader with the session replayed, then the unread commands.
func (f *Front) resume(h *Handoff) {
	defer f.wg.Done()
	defer f.clients.Add(-1)
	defer f.untrack(h.Conn)
	c := newCarrier(f, h.Conn, h.Gen)
	c.auth, c.use = h.Auth, h.Use
	if len(h.Watch) > 0 {
		c.watch = h.Watch
	}
	go c.readCommands(h.Unread, h.Skip)
	f.log.Debug().Str("remote_addr", h.Conn.RemoteAddr().String()).Int("owed", h.Owed).
		Msg("the leader's engine handed a connection back; carrying it")
	if up := c.failover(make([]carried, h.Owed)); up != nil {
		c.run(up)
	}
	c.end()
}
