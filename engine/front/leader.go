package front

import (
	"context"
	"crypto/tls"
	"net"
	"time"
)

// Finding and reaching the leader: its address and generation come from
// Config.Leader, a change of leader is signalled by Config.Moved, and its
// engine is dialed inside the node-to-node TLS when Config.TLS is set.

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
