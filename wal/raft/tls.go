package raft

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	hraft "github.com/hashicorp/raft"
	"github.com/rs/zerolog"
)

// NodeTLS puts the raft transport inside TLS: every connection a node
// accepts runs a handshake with Server (which must require and verify the
// peer's certificate), every connection it dials one with Client (which
// must present this node's certificate and verify the server's). A peer
// that fails the handshake - plain TCP, no certificate, one the CA did not
// sign - never reaches raft: it cannot join, vote or append. The configs'
// callbacks may change what they present and accept (a certificate
// reload); the configs themselves are read, never modified.
type NodeTLS struct {
	Server, Client *tls.Config
}

// handshakeTimeout bounds a peer's TLS handshake, on accept and on dial.
const handshakeTimeout = 10 * time.Second

// streamLayer is hashicorp/raft's StreamLayer on a TCP listener, inside
// TLS when tls is set (plain TCP otherwise, as raft's own TCP transport).
// The raft port also carries the membership changes a follower forwards
// to the leader (forward.go): the first byte of a connection tells them
// from raft's RPCs.
//
// Concurrency: one goroutine accepts; each accepted connection gets a
// goroutine of its own that runs the TLS handshake and reads the first
// byte, both bounded by handshakeTimeout, so a slow or silent peer never
// holds up the others. A raft connection is then handed to Accept (raft's
// NetworkTransport calls it from its one accept goroutine); a forwarded
// membership change is served on that goroutine. Dial is called from any
// goroutine. A failed handshake is logged at most once a second. Close
// ends the accept loop; Accept then fails with net.ErrClosed.
type streamLayer struct {
	ln        net.Listener
	advertise net.Addr
	tls       *NodeTLS // nil: plain TCP
	log       zerolog.Logger
	lastWarn  atomic.Int64 // unix nanoseconds of the last handshake warning

	conns     chan net.Conn // raft's connections, for Accept
	done      chan struct{} // closed by Close
	closeOnce sync.Once
	forward   atomic.Pointer[func(net.Conn, *bufio.Reader)] // serves a forwarded change; nil: refused
}

// newStreamLayer binds addr (host:port, advertised to the peers as it is:
// it must not be a wildcard address) and starts accepting.
func newStreamLayer(addr string, t *NodeTLS, log zerolog.Logger) (*streamLayer, error) {
	adv, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("raft: --raft-addr %q: %w", addr, err)
	}
	if adv.IP == nil || adv.IP.IsUnspecified() {
		return nil, fmt.Errorf("raft: --raft-addr %q: not an address the peers can reach", addr)
	}
	if t != nil && (t.Server == nil || t.Client == nil) {
		return nil, errors.New("raft: NodeTLS needs both Server and Client")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("raft: listen on %s: %w", addr, err)
	}
	s := &streamLayer{ln: ln, advertise: adv, tls: t, log: log, conns: make(chan net.Conn), done: make(chan struct{})}
	go s.acceptLoop()
	return s, nil
}

// acceptLoop accepts until Close; a failed accept (out of file
// descriptors, say) is retried after a pause.
func (s *streamLayer) acceptLoop() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			select {
			case <-s.done:
				return
			case <-time.After(20 * time.Millisecond):
				continue
			}
		}
		go s.route(c)
	}
}

// route runs c's handshake, reads its first byte, and hands it to raft or
// to the forwarded-change handler.
func (s *streamLayer) route(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(handshakeTimeout))
	if s.tls != nil {
		tc := tls.Server(c, s.tls.Server)
		if err := tc.Handshake(); err != nil {
			s.refused(c.RemoteAddr().String(), err, "raft peer refused: TLS handshake failed")
			_ = c.Close()
			return
		}
		c = tc
	}
	r := bufio.NewReader(c)
	first, err := r.Peek(1)
	if err != nil {
		_ = c.Close()
		return
	}
	_ = c.SetDeadline(time.Time{})
	if first[0] == forwardByte {
		if h := s.forward.Load(); h != nil {
			(*h)(c, r)
		}
		_ = c.Close()
		return
	}
	select {
	case s.conns <- &peekedConn{Conn: c, r: r}:
	case <-s.done:
		_ = c.Close()
	}
}

// peekedConn is a connection whose first bytes sit in r.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// Accept returns the next raft connection (inside TLS: its peer verified).
func (s *streamLayer) Accept() (net.Conn, error) {
	select {
	case c := <-s.conns:
		return c, nil
	case <-s.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting.
func (s *streamLayer) Close() error {
	err := net.ErrClosed
	s.closeOnce.Do(func() {
		close(s.done)
		err = s.ln.Close()
	})
	return err
}

// Addr is the advertised address.
func (s *streamLayer) Addr() net.Addr { return s.advertise }

// Dial connects to a peer's raft port (inside TLS: handshake done, the
// server's certificate verified).
func (s *streamLayer) Dial(address hraft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout}
	if s.tls == nil {
		return d.Dial("tcp", string(address))
	}
	ctx, cancel := context.WithTimeout(context.Background(), min(timeout, handshakeTimeout))
	defer cancel()
	c, err := (&tls.Dialer{NetDialer: &d, Config: s.tls.Client}).DialContext(ctx, "tcp", string(address))
	if err != nil {
		s.refused(string(address), err, "cannot reach a peer inside TLS")
		return nil, err
	}
	return c, nil
}

// refused logs a handshake failure, at most once a second.
func (s *streamLayer) refused(remote string, err error, msg string) {
	now := time.Now().UnixNano()
	last := s.lastWarn.Load()
	if now-last < int64(time.Second) || !s.lastWarn.CompareAndSwap(last, now) {
		return
	}
	s.log.Warn().Err(err).Str("remote_addr", remote).Msg(msg)
}
