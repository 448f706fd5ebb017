package difftest

import (
	"bufio"
	"errors"
	"io"
	"net"
	"syscall"
	"time"
)

// Timing of the client side. Generous: the tests must pass on a loaded
// 2-core CI box, and a reply that is on time costs nothing.
const (
	replyTimeout = 5 * time.Second        // for a reply that should come at once
	settleTime   = 100 * time.Millisecond // after a client-side close, for the server to notice
)

// session plays one script against one server, over its named connections.
// It is used by one goroutine.
type session struct {
	addr  string
	conns map[string]*client
}

// client is one connection of a session.
type client struct {
	c  net.Conn
	br *bufio.Reader
}

// play runs every step of sc against the server at addr and returns each
// step's replies. Failures (a refused dial, a timeout) are recorded as
// pseudo-replies, never fatal: the comparison reports them.
func play(addr string, sc script) [][]reply {
	s := &session{addr: addr, conns: make(map[string]*client)}
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
		return []reply{{note: "dial: " + err.Error()}}
	}
	if st.hangup {
		_ = c.c.Close()
		delete(s.conns, st.connName())
		time.Sleep(settleTime)
		return nil
	}
	for i, p := range st.send {
		if i > 0 && st.gap > 0 {
			time.Sleep(st.gap)
		}
		_ = c.c.SetWriteDeadline(time.Now().Add(replyTimeout))
		if _, err := c.c.Write([]byte(p)); err != nil {
			return []reply{{note: "write: " + err.Error()}}
		}
	}
	if st.shut {
		if cw, ok := c.c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
	}
	if st.quiet {
		return c.readUntil(time.Now().Add(quietWindow))
	}
	_ = c.c.SetReadDeadline(time.Now().Add(replyTimeout + st.wait))
	var rs []reply
	for range st.replies {
		r := readReply(c.br)
		rs = append(rs, r)
		if r.note != "" {
			return rs
		}
	}
	if st.eof {
		rs = append(rs, c.readUntil(time.Now().Add(replyTimeout))...)
	}
	return rs
}

// readUntil reads whatever replies arrive before deadline, and the end of the
// stream if it comes. Nothing arriving is the empty transcript.
func (c *client) readUntil(deadline time.Time) []reply {
	_ = c.c.SetReadDeadline(deadline)
	var rs []reply
	for {
		if _, err := c.br.Peek(1); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return rs
			}
			if errors.Is(err, io.EOF) {
				return append(rs, reply{note: noteEOF})
			}
			return append(rs, reply{note: err.Error()})
		}
		r := readReply(c.br)
		rs = append(rs, r)
		if r.note != "" {
			return rs
		}
	}
}

// conn returns the named connection, dialling it on first use.
func (s *session) conn(name string) (*client, error) {
	if c, ok := s.conns[name]; ok {
		return c, nil
	}
	nc, err := dial(s.addr)
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

// dial connects to addr. A refused connection is retried for a while: the
// reference prints its bound address before it calls listen(), and a refused
// attempt never reaches the server, so it skews no counter.
func dial(addr string) (net.Conn, error) {
	deadline := time.Now().Add(replyTimeout)
	for {
		nc, err := net.DialTimeout("tcp", addr, replyTimeout)
		if err == nil || !errors.Is(err, syscall.ECONNREFUSED) || time.Now().After(deadline) {
			return nc, err
		}
		time.Sleep(5 * time.Millisecond)
	}
}
