package engine

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/codec"
)

// FrontConfig configures a Front, the client port of a cluster node.
type FrontConfig struct {
	// Listener is the bound client socket (-l/-p); the Front owns it.
	Listener net.Listener
	// Leader returns the address of the server that carries out commands
	// (the leader's), waiting while there is none until ctx ends.
	Leader func(ctx context.Context) (string, error)
	// Wait bounds how long a new connection waits for a leader, and how
	// long dialing it may take (default 10 s).
	Wait   time.Duration
	Logger zerolog.Logger
}

// Front serves a cluster node's client port: each connection is carried
// byte for byte to the server of the current leader, so a client of any
// node gets the replies the leader sends, the same bytes a single node
// sends. When the leader's side closes (it died, or lost leadership), the
// client's connection closes too, as when a single server restarts; its
// reserved jobs stay reserved until their TTR (see wal/raft) and it may
// reconnect at once. Commands that arrive while there is no leader wait,
// up to Wait; then each is answered INTERNAL_ERROR (see refuse) and the
// connection is closed once the client has been quiet a moment.
//
// Concurrency: one goroutine accepts, two per connection copy; Stop is safe
// to call from any goroutine.
type Front struct {
	cfg  FrontConfig
	log  zerolog.Logger
	done chan struct{}

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// StartFront starts accepting on cfg.Listener.
func StartFront(cfg FrontConfig) *Front {
	if cfg.Wait <= 0 {
		cfg.Wait = 10 * time.Second
	}
	f := &Front{cfg: cfg, log: cfg.Logger.With().Str("component", "cluster").Logger(),
		done: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	f.log.Info().Str("addr", cfg.Listener.Addr().String()).Msg("listening")
	f.wg.Add(1)
	go f.accept()
	return f
}

// Addr is the client address.
func (f *Front) Addr() net.Addr { return f.cfg.Listener.Addr() }

func (f *Front) accept() {
	defer f.wg.Done()
	for {
		c, err := f.cfg.Listener.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			f.mu.Lock()
			closed := f.closed
			f.mu.Unlock()
			if !closed {
				f.log.Error().Err(err).Msg("accept failed; client port closed")
			}
			return
		}
		if !f.track(c) {
			_ = c.Close()
			return
		}
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

func (f *Front) untrack(c net.Conn) {
	f.mu.Lock()
	delete(f.conns, c)
	f.mu.Unlock()
	_ = c.Close()
}

// serve carries one client connection to the leader.
func (f *Front) serve(client net.Conn) {
	defer f.wg.Done()
	defer f.untrack(client)
	ctx, cancel := context.WithTimeout(context.Background(), f.cfg.Wait)
	defer cancel()
	go func() {
		select {
		case <-f.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	var up net.Conn
	for up == nil {
		addr, err := f.cfg.Leader(ctx)
		if err != nil {
			f.log.Warn().Str("remote_addr", client.RemoteAddr().String()).Msg("no leader; commands refused")
			refuse(client)
			return
		}
		var d net.Dialer
		up, err = d.DialContext(ctx, "tcp", addr)
		if err != nil {
			f.log.Debug().Err(err).Str("leader_addr", addr).Msg("cannot reach the leader; retrying")
			select {
			case <-ctx.Done():
				refuse(client)
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	if !f.track(up) {
		_ = up.Close()
		return
	}
	defer f.untrack(up)
	replies := make(chan struct{})
	go func() {
		// Replies: until the leader's side closes; then the client's goes.
		_, _ = io.Copy(client, up)
		_ = client.Close()
		close(replies)
	}()
	// Commands: a client that half-closes gets the replies to what it sent.
	if _, err := io.Copy(up, client); err == nil {
		if tc, ok := up.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
	} else {
		_ = up.Close()
	}
	<-replies
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

// refuseQuiet is how long refuse waits for more commands before closing.
const refuseQuiet = 200 * time.Millisecond

// refuse answers every command the client sent, and sends until it has
// been quiet for refuseQuiet, with INTERNAL_ERROR (a put: once its body is
// in), and closes at quit. The client gets an answer, never a hang.
func refuse(c net.Conn) {
	d := codec.NewDecoder(refuseMaxBody)
	var in, out []byte
	buf := make([]byte, 4096)
	for {
		_ = c.SetReadDeadline(time.Now().Add(refuseQuiet))
		n, err := c.Read(buf)
		in = append(in, buf[:n]...)
		for {
			cmd, k, ok := d.Decode(in)
			in = in[k:]
			if !ok {
				break
			}
			if cmd.Op == codec.OpQuit {
				_, _ = c.Write(out)
				return
			}
			if cmd.Op != codec.OpPutHeader {
				out = append(out, codec.InternalError...)
			}
		}
		if len(out) > 0 {
			_ = c.SetWriteDeadline(time.Now().Add(refuseQuiet))
			if _, werr := c.Write(out); werr != nil {
				return
			}
			out = out[:0]
		}
		if err != nil {
			return
		}
	}
}

// refuseMaxBody: bodies above it are swallowed rather than buffered.
const refuseMaxBody = 1 << 16
