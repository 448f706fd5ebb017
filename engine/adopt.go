package engine

import (
	"bytes"
	"context"
	"net"
	"os"
	"time"

	"github.com/panjf2000/gnet/v2"
)

// Adopted connections. A cluster node's client port (engine/front) carries
// its clients' commands to the leader's engine over TCP; while the node
// itself leads, that hop is its own engine over loopback, which costs the
// leader about a third of its CPU per command. Instead the front offers
// such a connection to the engine with Adopt, and the engine serves it on
// its event loops like one it accepted. When the engine stops - the node
// lost its leadership - an adopted connection is not closed but detached:
// its socket, the input it has not executed and its session (tubes used
// and watched, auth) go back to the front, which carries the connection
// to the next leader as it carries any other.

// Detached is an adopted connection the engine let go of while its client
// stayed connected: what carrying it on needs. The receiver owns Conn.
type Detached struct {
	Conn net.Conn // the client's socket (a descriptor of its own)
	// Unread is input received but not executed, in order: whole
	// commands, then perhaps the start of one.
	Unread []byte
	// Skip is how many bytes of the input that follows (Unread, then the
	// socket) are the rest of a put body the engine had begun reading;
	// that put is one of the Owed.
	Skip int
	// Owed is how many commands were taken but not answered: a reserve
	// that was waiting, a put whose body was arriving. Their outcome is
	// unknown to the client, as when a server dies (answer each
	// INTERNAL_ERROR).
	Owed   int
	Authed bool     // the client authenticated (auth tokens are configured)
	Use    string   // the tube used
	Watch  []string // the tubes watched, in listing order
}

// adoption is the gnet context of an adopted connection until OnOpen, and
// what end reports through afterwards.
type adoption struct {
	back func(*Detached)
	d    *Detached // set by detach; nil: the connection ended
}

// Adopt serves c, a TCP connection accepted by someone else, as if the
// Server had accepted it, and reports whether it took c. If it did, back
// is called exactly once, on an event loop (it must not block): with nil
// when the connection ends, or with the Detached connection when Stop let
// go of it while its client was still connected (see Stop). If it did
// not (the Server is stopping or not serving, or at its connection cap),
// c is untouched. Safe for concurrent use.
func (s *Server) Adopt(c net.Conn, back func(*Detached)) bool {
	if _, ok := c.(*net.TCPConn); !ok || s.stopping.Load() || !s.servedFlag.Load() {
		return false
	}
	if n := s.open.Add(1); s.cfg.MaxConns > 0 && n > int64(s.cfg.MaxConns) {
		s.open.Add(-1)
		return false
	}
	s.adopting.Add(1)
	if _, err := s.cli.EnrollContext(c, &adoption{back: back}); err != nil { // closes c
		s.open.Add(-1)
		s.acceptErrs.Event(func() {
			s.log.Warn().Err(err).Msg("cannot serve an adopted connection; closed it")
		})
		back(nil)
	}
	return true
}

// openAdopted is OnOpen's part for an adopted connection: it remembers the
// adoption, or hands the connection straight back when the Server began
// stopping meanwhile.
func (s *Server) openAdopted(gc gnet.Conn, ad *adoption, cn *conn) {
	if cn == nil {
		ad.d = &Detached{Use: "default", Watch: []string{"default"}}
		if !ad.d.takeSocket(gc) {
			ad.d = nil
		}
		ad.back(ad.d)
		return
	}
	s.adopted.Store(cn, ad)
}

// endAdopted reports the end (or the detaching) of an adopted connection.
func (s *Server) endAdopted(cn *conn) {
	if v, ok := s.adopted.LoadAndDelete(cn); ok {
		ad := v.(*adoption)
		ad.back(ad.d)
	}
}

// detachAdopted lets go of every adopted connection (Stop, after the
// replies due are written): each one is woken on its event loop, which
// detaches it once nothing is left to write (conn.detach). It returns when
// none is left or ctx ends; Client.Stop then closes the rest.
func (s *Server) detachAdopted(ctx context.Context) {
	if s.adopting.Load() == 0 {
		return
	}
	s.detaching.Store(true)
	t := time.NewTicker(drainPoll)
	defer t.Stop()
	first := -1
	for {
		n := 0
		s.adopted.Range(func(k, _ any) bool {
			n++
			_ = k.(*conn).gc.Wake(nil)
			return true
		})
		if first < 0 {
			first = n
		}
		if n == 0 {
			if first > 0 {
				s.log.Info().Int("connections", first).Msg("adopted client connections handed back")
			}
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// detach is step for an adopted connection while the Server stops: once
// every reply due is written it takes the socket, the unexecuted input and
// the session's tubes into the adoption and closes the gnet side (end
// reports them). A connection that is quitting, half-closed or in the
// middle of a line it was discarding is closed instead.
func (cn *conn) detach(ad *adoption) gnet.Action {
	if a := cn.flush(); a != gnet.None || cn.closed {
		return a
	}
	if !cn.held.empty() || cn.gc.OutboundBuffered() > 0 {
		return gnet.None // the next wake tries again
	}
	inBody := cn.rx != nil && cn.rx.dec.InBody()
	if cn.quitting || cn.eof || (cn.rx != nil && !cn.rx.dec.Idle() && !inBody) {
		return gnet.Close
	}
	d := &Detached{Authed: cn.authed && len(cn.srv.tokens) > 0, Use: cn.sess.Used(), Watch: cn.sess.Watched(nil)}
	if cn.waiting {
		d.Owed++
	}
	if inBody {
		d.Owed++
		d.Skip = cn.rx.dec.BodyLeft()
	}
	if n := cn.gc.InboundBuffered(); n > 0 {
		b, err := cn.gc.Peek(n)
		if err != nil {
			return gnet.Close
		}
		d.Unread = bytes.Clone(b)
	}
	if !d.takeSocket(cn.gc) {
		return gnet.Close
	}
	ad.d = d
	return gnet.Close
}

// takeSocket sets d.Conn to a duplicate of t's socket.
func (d *Detached) takeSocket(t transport) bool {
	fd, err := t.Dup()
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), "client")
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		return false
	}
	d.Conn = c
	return true
}
