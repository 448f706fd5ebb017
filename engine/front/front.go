package front

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/engine/tlscert"
)

// Config configures a Front, the client port of a cluster node.
type Config struct {
	// Listener is the bound client socket (-l/-p); the Front owns it. A
	// listener from tls.NewListener serves the protocol inside TLS (--tls):
	// the front runs each handshake, bounded, before carrying.
	Listener net.Listener
	// Leader returns the address of the server that carries out commands
	// (the leader's), waiting while there is none until ctx ends.
	// gen tells the leader's engines apart (the raft term): a connection
	// the same engine closes was closed on purpose, not by a failover.
	Leader func(ctx context.Context) (addr string, gen uint64, err error)
	// Moved, if set, returns a channel closed when the leader may have
	// changed (raft's Node.LeaderChanged). A connection carried to an
	// engine of another generation than Leader's then moves to the
	// current leader at once, as if its engine had failed: an old leader
	// that is paused or hung, not dead, keeps its sockets open and would
	// hold the connection. nil: a connection moves when its engine fails.
	Moved func() <-chan struct{}
	// Wait bounds how long a connection waits for a leader, and how long
	// dialing it may take (default 10 s).
	Wait time.Duration
	// MaxJobSize must be the engine's Config.MaxJobSize (-z), with the
	// same meaning (codec.MaxJobSize): the front frames commands as the
	// engine does.
	MaxJobSize uint32
	// MaxConns caps open client connections (0: no cap); past it a new one
	// is closed at once, with a warning at most once a second.
	MaxConns int
	// TLS, if set, is the client side of the node-to-node mutual TLS
	// (NodeTLS.ClientConfig): the front dials the leader's engine inside
	// it, and the engine must require it (NodeTLS.ServerConfig). nil:
	// plain TCP.
	TLS *tls.Config
	// Direct, if set, is offered every plain (not TLS) client connection
	// before it is carried: it reports whether the leader's engine in this
	// process took the connection to serve it itself (this node leads),
	// which saves the leader the carry over loopback. A connection taken
	// is the engine's until back is called, once: with nil when the
	// connection ended, or with a Handoff when the engine let go of it
	// (this node stopped leading); the front then carries it to the next
	// leader as any other. back does not block.
	Direct func(c net.Conn, back func(*Handoff)) bool
	Logger zerolog.Logger
}

// Front serves a cluster node's client port: each connection's commands
// are carried to the engine of the current leader and its replies carried
// back, so a client of any node gets the replies the leader sends, the
// same bytes a single node sends. When the leader changes, the connection
// is carried to the next one (carry.go): commands in flight are
// answered INTERNAL_ERROR, the client's use and watch list are replayed,
// and it goes on. Commands that arrive while there is no leader wait, up
// to Wait; then each is answered INTERNAL_ERROR (see refuse) and the
// connection is closed once the client has been quiet a moment.
//
// Concurrency: one goroutine accepts; per connection, one reads the
// client's commands, one carries them to the leader, one reads the
// leader's replies and writes them to the client. Stop is safe to call
// from any goroutine.
type Front struct {
	cfg  Config
	log  zerolog.Logger
	done chan struct{}

	clients atomic.Int64 // open client connections

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Start starts accepting on cfg.Listener.
func Start(cfg Config) *Front {
	if cfg.Wait <= 0 {
		cfg.Wait = 10 * time.Second
	}
	cfg.MaxJobSize, _ = codec.MaxJobSize(cfg.MaxJobSize) // as the engine reads it
	f := &Front{cfg: cfg, log: cfg.Logger.With().Str("component", "cluster").Logger(),
		done: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	f.log.Info().Str("addr", cfg.Listener.Addr().String()).Msg("listening")
	f.wg.Add(1)
	go f.accept()
	return f
}

// Addr is the client address.
func (f *Front) Addr() net.Addr { return f.cfg.Listener.Addr() }

// accept takes connections until Stop. A failed accept (out of file
// descriptors, say) is retried after a pause, never fatal; past MaxConns
// open client connections a new one is closed at once.
func (f *Front) accept() {
	defer f.wg.Done()
	var lastWarn time.Time
	for {
		c, err := f.cfg.Listener.Accept()
		if err != nil {
			f.mu.Lock()
			closed := f.closed
			f.mu.Unlock()
			if closed || errors.Is(err, net.ErrClosed) {
				return
			}
			if time.Since(lastWarn) > time.Second {
				f.log.Warn().Err(err).Msg("accept failed; retrying")
				lastWarn = time.Now()
			}
			select {
			case <-f.done:
				return
			case <-time.After(20 * time.Millisecond):
			}
			continue
		}
		if f.cfg.MaxConns > 0 && f.clients.Load() >= int64(f.cfg.MaxConns) {
			_ = c.Close()
			if time.Since(lastWarn) > time.Second {
				f.log.Warn().Int("max_connections", f.cfg.MaxConns).Msg("connection refused: too many")
				lastWarn = time.Now()
			}
			continue
		}
		if f.direct(c) {
			continue
		}
		if !f.track(c) {
			_ = c.Close()
			return
		}
		f.clients.Add(1)
		f.wg.Add(1)
		go f.serve(c)
	}
}

func (f *Front) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.conns[c] = struct{}{}
	return true
}

// trackServe tracks c and counts a goroutine that serves it, under one
// lock, so that Stop either sees both or refuses (false).
func (f *Front) trackServe(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.conns[c] = struct{}{}
	f.wg.Add(1)
	return true
}

// moved returns Moved's channel (nil without Moved: never ready).
func (f *Front) moved() <-chan struct{} {
	if f.cfg.Moved == nil {
		return nil
	}
	return f.cfg.Moved()
}

// leaderMoved reports whether a leader of another generation than gen is
// known now (Leader asked not to wait).
func (f *Front) leaderMoved(gen uint64) bool {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, g, err := f.cfg.Leader(ctx)
	return err == nil && g != gen
}

func (f *Front) untrack(c net.Conn) {
	f.mu.Lock()
	delete(f.conns, c)
	f.mu.Unlock()
	_ = c.Close()
}

// serve carries one client connection to the leader (see carried).
func (f *Front) serve(client net.Conn) {
	defer f.wg.Done()
	defer f.clients.Add(-1)
	defer f.untrack(client)
	if tc, ok := client.(*tls.Conn); ok && !f.handshake(tc) {
		return
	}
	c := newCarrier(f, client, 0)
	go c.readCommands(nil, 0)
	defer c.end()
	// A client costs no connection to the leader (and no goroutine to read
	// its replies) until its first command: a node may hold thousands of
	// idle ones.
	first, ok := <-c.cmds
	if !ok {
		return
	}
	c.first = first
	ctx, cancel := f.waitCtx()
	up, gen := f.dial(ctx)
	cancel()
	if up == nil {
		f.log.Warn().Str("remote_addr", client.RemoteAddr().String()).Msg("no leader; commands refused")
		c.refuseRest()
		return
	}
	c.gen = gen
	c.run(up)
}

// handshake runs a TLS client's handshake (a listener wrapped by
// tls.NewListener), bounded as the engine's TLS listener bounds it.
func (f *Front) handshake(c *tls.Conn) bool {
	ctx, cancel := context.WithTimeout(context.Background(), tlscert.HandshakeTimeout)
	defer cancel()
	if err := c.HandshakeContext(ctx); err != nil {
		f.log.Debug().Err(err).Str("remote_addr", c.RemoteAddr().String()).Msg("TLS handshake failed")
		return false
	}
	return true
}

// waitCtx bounds a wait for a leader by Wait and by Stop.
func (f *Front) waitCtx() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), f.cfg.Wait)
	go func() {
		select {
		case <-f.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// dial connects to the leader, retrying until ctx ends (then nil), and
// returns the leader engine's generation too. The connection is tracked:
// Stop closes it; untrack it when done.
func (f *Front) dial(ctx context.Context) (net.Conn, uint64) {
	for {
		addr, gen, err := f.cfg.Leader(ctx)
		if err != nil {
			return nil, 0
		}
		up, err := f.dialLeader(ctx, addr)
		if err == nil {
			if !f.track(up) {
				_ = up.Close()
				return nil, 0
			}
			return up, gen
		}
		f.log.Debug().Err(err).Str("leader_addr", addr).Msg("cannot reach the leader; retrying")
		select {
		case <-ctx.Done():
			return nil, 0
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// dialLeader connects to the leader's engine at addr, inside TLS with
// FrontConfig.TLS (the handshake done, bounded by ctx).
func (f *Front) dialLeader(ctx context.Context, addr string) (net.Conn, error) {
	if f.cfg.TLS == nil {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", addr)
	}
	return (&tls.Dialer{Config: f.cfg.TLS}).DialContext(ctx, "tcp", addr)
}

// Stop closes the client port and every connection, and waits for the
// goroutines (bounded by ctx).
func (f *Front) Stop(ctx context.Context) error {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil
	}
	f.closed = true
	close(f.done)
	_ = f.cfg.Listener.Close()
	for c := range f.conns {
		_ = c.Close()
	}
	f.mu.Unlock()
	waited := make(chan struct{})
	go func() { f.wg.Wait(); close(waited) }()
	select {
	case <-waited:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// refuseQuiet is how long refuseRest waits for more commands before closing.
const refuseQuiet = 200 * time.Millisecond
