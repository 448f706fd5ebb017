package enginetest

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// proxyConn is one connection through a FaultProxy: the dialer's side, the
// target's side, and per direction a reader (which applies the mode) and a
// writer (which waits out the delay), joined by a bounded queue of chunks.
type proxyConn struct {
	p      *FaultProxy
	side   [2]net.Conn // by Direction: the side read from
	lost   [2]atomic.Bool
	done   chan struct{}
	once   sync.Once
	halves atomic.Int32 // directions finished cleanly (EOF forwarded)
}

// chunk is bytes read at one time, to be written at due.
type chunk struct {
	due time.Time
	b   []byte
}

// proxyQueue bounds the chunks read but not yet written, per direction.
const proxyQueue = 64

// connect dials the target for the accepted connection c and starts the
// four pumps; it holds one count of p.wg, taken by accept.
func (p *FaultProxy) connect(c net.Conn) {
	defer p.wg.Done()
	s, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		_ = c.Close()
		return
	}
	pc := &proxyConn{p: p, side: [2]net.Conn{c, s}, done: make(chan struct{})}
	p.mu.Lock()
	if p.cut || p.closed {
		p.mu.Unlock()
		p.refused.Add(1)
		pc.close()
		return
	}
	p.conns[pc] = struct{}{}
	p.wg.Add(4)
	p.mu.Unlock()
	p.accepted.Add(1)
	for _, d := range []Direction{Up, Down} {
		q := make(chan chunk, proxyQueue)
		go pc.read(d, q)
		go pc.write(d, q)
	}
}

// close closes both sides and forgets the connection. Idempotent.
func (c *proxyConn) close() {
	c.once.Do(func() {
		close(c.done)
		_ = c.side[0].Close()
		_ = c.side[1].Close()
		c.p.mu.Lock()
		delete(c.p.conns, c)
		c.p.mu.Unlock()
	})
}

// read reads direction d's source until it ends or the connection closes,
// and queues what the mode lets through; it closes q when done.
func (c *proxyConn) read(d Direction, q chan<- chunk) {
	defer c.p.wg.Done()
	defer close(q)
	for {
		buf := make([]byte, 32<<10)
		n, err := c.side[d].Read(buf)
		if n > 0 {
			m, cut := c.p.mode(d)
			switch {
			case cut:
				c.close()
				return
			case m.drop:
				c.p.dropped[d].Add(int64(n))
				c.lost[d].Store(true)
			case c.lost[d].Load(): // the stream has a hole: end it
				c.close()
				return
			default:
				select {
				case q <- chunk{due: time.Now().Add(m.delay), b: buf[:n]}:
				case <-c.done:
					return
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.close()
			}
			return // EOF: the writer forwards it once the queue is written
		}
	}
}

// write writes direction d's queued chunks to the other side, each at its
// due time; at the end of the queue it forwards the EOF (a half close), and
// the connection closes once both directions ended so.
func (c *proxyConn) write(d Direction, q <-chan chunk) {
	defer c.p.wg.Done()
	dst := c.side[1-d]
	for ch := range q {
		if wait := time.Until(ch.due); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-c.done:
				t.Stop()
				return
			}
		}
		if _, err := dst.Write(ch.b); err != nil {
			c.close()
			return
		}
		c.p.passed[d].Add(int64(len(ch.b)))
	}
	select {
	case <-c.done:
		return
	default:
	}
	if tc, ok := dst.(*net.TCPConn); ok && tc.CloseWrite() == nil && c.halves.Add(1) < 2 {
		return
	}
	c.close()
}
