package front

import (
	"context"
	"crypto/tls"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/codec"
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
