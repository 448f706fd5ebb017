package front

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"time"

	"github.com/stalkd/stalkd/engine/tlscert"
)

// The client connections of a Front: accepting them (bounded by MaxConns,
// offered to the leader's engine first with Config.Direct), tracking them
// for Stop, and serving each by carrying it (carry.go).

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
