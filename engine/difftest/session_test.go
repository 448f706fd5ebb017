package difftest

import (
	"bufio"
	"errors"
	"io"
	"net"
	"time"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// replyTimeout bounds the wait for a reply that should come. Generous: the
// tests must pass on a loaded 2-core CI box, and a reply that is on time
// costs nothing.
const replyTimeout = enginetest.Timeout

// session plays one script against one server, over its named connections.
// It is used by one goroutine.
type session struct {
	tg    target
	conns map[string]*client
}

// client is one connection of a session.
type client struct {
	c  net.Conn
	br *bufio.Reader
}

// play runs every step of sc against the server tg and returns each step's
// replies. Failures (a refused dial, a timeout) are recorded as
// pseudo-replies, never fatal: the comparison reports them.
func play(tg target, sc script) [][]reply {
	s := &session{tg: tg, conns: make(map[string]*client)}
	defer s.closeAll()
	out := make([][]reply, len(sc.steps))
	for i, st := range sc.steps {
		out[i] = s.step(st)
	}
	return out
}

// step performs one step: writes, then reads.
func (s *session) step(st step) []reply {
	if st.sleep > 0 {
		time.Sleep(st.sleep)
		return nil
	}
	c, err := s.conn(st.connName())
	if err != nil {
		return []reply{{Note: "dial: " + err.Error()}}
	}
	if st.hangup {
		local, remote := c.c.LocalAddr(), c.c.RemoteAddr()
		_ = c.c.Close()
		delete(s.conns, st.connName())
		if err := enginetest.Closed(local, remote); err != nil {
			return []reply{{Note: err.Error()}}
		}
		return nil
	}
	for i, p := range st.send {
		if i > 0 && st.split {
			// The server has read and handled the previous part before
			// this one leaves: each part is a read of its own.
			if err := enginetest.Settle(c.c, s.tg.pid); err != nil {
				return []reply{{Note: err.Error()}}
			}
		}
		_ = c.c.SetWriteDeadline(time.Now().Add(replyTimeout))
		if _, err := c.c.Write([]byte(p)); err != nil {
			return []reply{{Note: "write: " + err.Error()}}
		}
	}
	if st.shut {
		if cw, ok := c.c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
	}
	if st.quiet {
		return c.settled(s.tg.pid)
	}
	_ = c.c.SetReadDeadline(time.Now().Add(replyTimeout + st.wait))
	var rs []reply
	for range st.replies {
		r := enginetest.ReadReply(c.br)
		rs = append(rs, r)
		if r.Note != "" {
			return rs
		}
	}
	if st.eof {
		rs = append(rs, c.readToEOF()...)
	}
	return rs
}

// settled waits until the server has handled every byte sent and sleeps
// (enginetest.Settle), then returns the replies it had sent by then, and the
// end of the stream if it closed the connection. Nothing is the empty
// transcript.
func (c *client) settled(pid int) []reply {
	if err := enginetest.Settle(c.c, pid); err != nil {
		return []reply{{Note: err.Error()}}
	}
	var rs []reply
	_ = c.c.SetReadDeadline(time.Now().Add(replyTimeout))
	for {
		unread, err := enginetest.Unread(c.c)
		if err != nil {
			return append(rs, reply{Note: err.Error()})
		}
		if unread == 0 && c.br.Buffered() == 0 {
			if closedByPeer(c.c) {
				return append(rs, c.readToEOF()...)
			}
			return rs
		}
		r := enginetest.ReadReply(c.br)
		rs = append(rs, r)
		if r.Note != "" {
			return rs
		}
	}
}

// closedByPeer reports whether the server has closed its end of c.
func closedByPeer(c net.Conn) bool {
	closed, err := enginetest.PeerClosed(c)
	return err == nil && closed
}

// readToEOF reads replies until the end of the stream.
func (c *client) readToEOF() []reply {
	_ = c.c.SetReadDeadline(time.Now().Add(replyTimeout))
	var rs []reply
	for {
		if _, err := c.br.Peek(1); err != nil {
			if errors.Is(err, io.EOF) {
				return append(rs, reply{Note: enginetest.NoteEOF})
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return append(rs, reply{Note: enginetest.NoteTimeout})
			}
			return append(rs, reply{Note: err.Error()})
		}
		r := enginetest.ReadReply(c.br)
		rs = append(rs, r)
		if r.Note != "" {
			return rs
		}
	}
}

// conn returns the named connection, dialling it on first use.
func (s *session) conn(name string) (*client, error) {
	if c, ok := s.conns[name]; ok {
		return c, nil
	}
	nc, err := dial(s.tg.addr)
	if err != nil {
		return nil, err
	}
	c := &client{c: nc, br: bufio.NewReader(nc)}
	s.conns[name] = c
	return c, nil
}

// closeAll closes every open connection.
func (s *session) closeAll() {
	for _, c := range s.conns {
		_ = c.c.Close()
	}
}

// dial connects to addr. Both servers listen before their start returns.
func dial(addr string) (net.Conn, error) { return net.DialTimeout("tcp", addr, replyTimeout) }
