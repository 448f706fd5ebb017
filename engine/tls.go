package engine

import (
	"context"
	"crypto/tls"
	"errors"

	"net"
	"sync"
	"syscall"
	"time"

	"github.com/panjf2000/gnet/v2"
	"github.com/stalkd/stalkd/engine/internal/listen"
	"github.com/stalkd/stalkd/engine/internal/ratelog"
	"github.com/stalkd/stalkd/engine/tlscert"
)

// TLS connections. gnet has no TLS, so a TLS connection is served on
// goroutines of its own: a reader and a writer around crypto/tls, and an
// owner goroutine that plays the part of gnet's event loop - it alone runs
// the connection's protocol logic (conn.serve, the same code as for plain
// connections) whenever input arrives or the connection is woken. The
// reader stops reading while tlsReadAhead bytes wait to be consumed, so a
// TLS client that does not keep up is held back by TCP itself.

const (
	// tlsReadAhead is how much received input a TLS connection buffers
	// before its reader waits for the protocol logic to consume some.
	tlsReadAhead = 256 << 10
	// tlsReadChunk is the reader's buffer (a TLS record is at most 16 KiB).
	tlsReadChunk = 16 << 10
	// tlsCloseTimeout bounds the writing of a closing connection's last
	// replies.
	tlsCloseTimeout = time.Second
)

// tlsServer is the TLS listener and the connections it serves.
type tlsServer struct {
	acc   *acceptor
	cfg   *tls.Config
	fails ratelog.Log // handshake failures, logged at most once a second

	mu    sync.Mutex
	conns map[*tlsConn]struct{}
	wg    sync.WaitGroup
}

// listenTLS binds Config.TLSAddr.
func (s *Server) listenTLS(ctx context.Context) (*tlsServer, error) {
	if s.cfg.TLSConfig == nil {
		return nil, errors.New("engine: TLSAddr needs a TLSConfig")
	}
	spec, err := listen.Parse(s.cfg.TLSAddr)
	if err != nil {
		return nil, err
	}
	ln, err := listen.Listen(ctx, spec, s.cfg.KeepAlive)
	if err != nil {
		return nil, err
	}
	cfg := s.cfg.TLSConfig.Clone()
	cfg.MinVersion = max(cfg.MinVersion, tls.VersionTLS12)
	t := &tlsServer{cfg: cfg, conns: make(map[*tlsConn]struct{})}
	if t.acc, err = newAcceptor(ln, s.admitTLS); err != nil {
		_ = ln.Close()
		return nil, err
	}
	return t, nil
}

// admitTLS starts serving an accepted TLS connection on its own goroutines.
func (s *Server) admitTLS(c net.Conn) {
	if !s.admitCount(c) {
		return
	}
	t := s.tls
	tc := &tlsConn{
		srv: s, raw: c, tc: tls.Server(c, t.cfg), fd: -1,
		wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{}),
		readOK: make(chan struct{}, 1), wsig: make(chan struct{}, 1),
	}
	if sc, ok := c.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			_ = rc.Control(func(fd uintptr) { tc.fd = int(fd) })
		}
	}
	t.mu.Lock()
	t.conns[tc] = struct{}{}
	t.wg.Add(1)
	t.mu.Unlock()
	go tc.run()
}

// closeAll closes every TLS connection and waits for their goroutines.
func (t *tlsServer) closeAll() {
	t.mu.Lock()
	for tc := range t.conns {
		tc.quitOnce.Do(func() { close(tc.quit) })
	}
	t.mu.Unlock()
	t.wg.Wait()
}

// tlsConn is one TLS connection: the transport of its conn.
//
// Ownership: cn, held and the read side of in belong to the owner goroutine
// (run). The reader appends to in and the writer drains out, each under
// its mutex.
type tlsConn struct {
	srv *Server
	raw net.Conn
	tc  *tls.Conn
	fd  int
	cn  *conn

	wake     chan struct{} // the owner has something to do (cap 1)
	quit     chan struct{} // the server stops: end the connection
	quitOnce sync.Once
	done     chan struct{} // the owner has ended the connection

	mu     sync.Mutex
	in     []byte        // received input; in[r:] is not yet consumed
	r      int           //
	rerr   error         // why the reader stopped (io.EOF at the end)
	readOK chan struct{} // input was consumed: the reader may read on (cap 1)

	wmu       sync.Mutex
	out       []byte        // queued for the writer
	inflight  int           // bytes being written
	werr      error         // the writer's failure
	wsig      chan struct{} // out has data (cap 1)
	wakeDrain bool          // wake the owner when out is drained

	finishing *heldReplies // replies held at the end, written as committed
}

// run is the owner goroutine.
func (t *tlsConn) run() {
	s := t.srv
	defer func() {
		s.tls.mu.Lock()
		delete(s.tls.conns, t)
		s.tls.mu.Unlock()
		s.open.Add(-1)
		s.tls.wg.Done()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), tlscert.HandshakeTimeout)
	go func() { // Stop cuts a handshake short
		select {
		case <-t.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	err := t.tc.HandshakeContext(ctx)
	cancel()
	if err != nil || s.stopping.Load() {
		if err != nil {
			s.tls.fails.Event(func() {
				s.log.Warn().Err(err).Stringer("remote_addr", t.raw.RemoteAddr()).
					Int64("failures", s.tls.fails.Take()).Msg("tls handshake failed")
			})
		}
		_ = t.raw.Close()
		close(t.done)
		return
	}
	t.cn = s.openConn(t, t.fd, t.raw.RemoteAddr(), len(t.tc.ConnectionState().VerifiedChains) > 0)
	go t.reader()
	go t.writer()
	t.loop()
	t.close()
}

// loop serves the connection until it ends.
func (t *tlsConn) loop() {
	cn := t.cn
	for {
		select {
		case <-t.wake:
		case <-t.quit:
			cn.end(nil)
			return
		}
		t.wmu.Lock()
		werr := t.werr
		t.wmu.Unlock()
		if werr != nil {
			cn.end(werr)
			return
		}
		t.mu.Lock()
		rerr := t.rerr
		t.mu.Unlock()
		if rerr != nil {
			// As gnet's OnClose: after an end of input, what was sent
			// before it is answered (conn.answerAtEOF).
			cn.end(rerr)
			return
		}
		if cn.serve() == gnet.Close {
			cn.end(nil)
			return
		}
		t.wmu.Lock()
		t.wakeDrain = cn.stall
		t.wmu.Unlock()
	}
}

// close finishes held replies, writes what is queued (for a bounded time)
// and closes the socket.
func (t *tlsConn) close() {
	deadline := time.Now().Add(tlsCloseTimeout)
	if t.finishing != nil {
		deadline = time.Now().Add(finishTimeout)
		var out []byte
		for !t.finishing.empty() && time.Now().Before(deadline) {
			out = t.finishing.release(out[:0], t.srv.queue)
			if len(out) > 0 {
				_, _ = t.Write(out)
			}
			time.Sleep(time.Millisecond)
		}
	}
	_ = t.raw.SetWriteDeadline(deadline)
	for time.Now().Before(deadline) {
		t.wmu.Lock()
		left, failed := len(t.out)+t.inflight, t.werr != nil
		t.wakeDrain = true
		t.wmu.Unlock()
		if left == 0 || failed {
			break
		}
		select {
		case <-t.wake:
		case <-time.After(time.Until(deadline)):
		}
	}
	close(t.done)
	_ = t.tc.Close()
}

// reader reads input into in, waiting while tlsReadAhead bytes are unread.
func (t *tlsConn) reader() {
	buf := make([]byte, tlsReadChunk)
	for {
		t.mu.Lock()
		full := len(t.in)-t.r >= tlsReadAhead
		t.mu.Unlock()
		if full {
			select {
			case <-t.readOK:
				continue
			case <-t.done:
				return
			}
		}
		n, err := t.tc.Read(buf)
		t.mu.Lock()
		t.in = append(t.in, buf[:n]...)
		if err != nil {
			t.rerr = err
		}
		t.mu.Unlock()
		kick(t.wake)
		if err != nil {
			return
		}
	}
}

// writer writes what the owner queued.
func (t *tlsConn) writer() {
	var spare []byte
	for {
		select {
		case <-t.wsig:
		case <-t.done:
			return
		}
		t.wmu.Lock()
		data := t.out
		t.out, t.inflight = spare[:0], len(data)
		t.wmu.Unlock()
		_, err := t.tc.Write(data)
		t.wmu.Lock()
		t.inflight = 0
		if err != nil {
			t.werr = err
		}
		drained := len(t.out) == 0 && t.wakeDrain
		t.wmu.Unlock()
		if cap(data) <= keepOutCap {
			spare = data
		} else {
			spare = nil
		}
		if err != nil || drained {
			kick(t.wake)
		}
		if err != nil {
			return
		}
	}
}

// RemoteAddr is the peer's address (for conn's logs).
func (t *tlsConn) RemoteAddr() net.Addr { return t.raw.RemoteAddr() }

// The transport methods. Only the owner calls them, but Wake.

func (t *tlsConn) InboundBuffered() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.in) - t.r
}

func (t *tlsConn) Peek(n int) ([]byte, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n > len(t.in)-t.r {
		return nil, errors.New("engine: peek past the buffered input")
	}
	return t.in[t.r : t.r+n : t.r+n], nil
}

func (t *tlsConn) Discard(n int) (int, error) {
	t.mu.Lock()
	n = min(n, len(t.in)-t.r)
	t.r += n
	if t.r == len(t.in) {
		t.in, t.r = t.in[:0], 0
		if cap(t.in) > 2*tlsReadAhead {
			t.in = nil
		}
	} else if t.r >= tlsReadAhead {
		k := copy(t.in, t.in[t.r:])
		t.in, t.r = t.in[:k], 0
	}
	t.mu.Unlock()
	kick(t.readOK)
	return n, nil
}

func (t *tlsConn) Write(b []byte) (int, error) {
	t.wmu.Lock()
	err := t.werr
	if err == nil {
		t.out = append(t.out, b...)
	}
	t.wmu.Unlock()
	if err != nil {
		return 0, err
	}
	kick(t.wsig)
	return len(b), nil
}

func (t *tlsConn) OutboundBuffered() int {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	return len(t.out) + t.inflight
}

func (t *tlsConn) Wake(gnet.AsyncCallback) error {
	kick(t.wake)
	return nil
}

func (t *tlsConn) Dup() (int, error) {
	return -1, errors.New("engine: a TLS connection's socket cannot be handed over")
}

// finishHeld keeps the replies held at the end of input, to be written as
// they are committed, before the connection closes (plain connections do
// this on a duplicate of the socket).
func (t *tlsConn) finishHeld(h heldReplies) { t.finishing = &h }
