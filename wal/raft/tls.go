package raft

import (
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
//
// Concurrency: raft's NetworkTransport calls Accept from its one accept
// goroutine and Dial from any goroutine; both are safe for concurrent use.
// Accept does not run the handshake: the accepted connection runs it,
// bounded by handshakeTimeout, on its first Read or Write - in the
// goroutine raft gives the connection - so a slow or silent peer never
// holds up the accept loop. A failed handshake is logged at most once a
// second, and the connection fails its first Read; raft closes it.
type streamLayer struct {
	ln        net.Listener
	advertise net.Addr
	tls       *NodeTLS // nil: plain TCP
	log       zerolog.Logger
	lastWarn  atomic.Int64 // unix nanoseconds of the last handshake warning
}

// newStreamLayer binds addr (host:port, advertised to the peers as it is:
// it must not be a wildcard address).
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
	return &streamLayer{ln: ln, advertise: adv, tls: t, log: log}, nil
}

// Accept returns the next connection (inside TLS: its handshake pending).
func (s *streamLayer) Accept() (net.Conn, error) {
	c, err := s.ln.Accept()
	if err != nil || s.tls == nil {
		return c, err
	}
	return &serverConn{Conn: tls.Server(c, s.tls.Server), s: s}, nil
}

// Close closes the listener.
func (s *streamLayer) Close() error { return s.ln.Close() }

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

// serverConn is an accepted TLS connection whose handshake runs, bounded,
// on its first Read or Write.
type serverConn struct {
	*tls.Conn
	s    *streamLayer
	once sync.Once
	err  error
}

func (c *serverConn) handshake() error {
	c.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), handshakeTimeout)
		defer cancel()
		if c.err = c.HandshakeContext(ctx); c.err != nil {
			c.s.refused(c.RemoteAddr().String(), c.err, "raft peer refused: TLS handshake failed")
		}
	})
	return c.err
}

func (c *serverConn) Read(b []byte) (int, error) {
	if err := c.handshake(); err != nil {
		return 0, err
	}
	return c.Conn.Read(b)
}

func (c *serverConn) Write(b []byte) (int, error) {
	if err := c.handshake(); err != nil {
		return 0, err
	}
	return c.Conn.Write(b)
}
