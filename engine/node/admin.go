package node

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/admin"
	"github.com/stalkd/stalkd/wal"
)

// adminServer is the running admin listener (nil when Config.Admin.Addr
// is empty); its methods accept a nil receiver.
type adminServer struct {
	srv      *admin.Server
	stopping atomic.Bool
}

// adminOptions are the admin listener's options common to both kinds of
// node; a's stopping flag makes /readyz fail, and so does down (nil:
// nothing else).
func (n *Node) adminOptions(a *adminServer, down func() error) admin.Options {
	return admin.Options{
		Addr: n.cfg.Admin.Addr, Version: engine.Version, ProtocolVersion: engine.ProtocolVersion,
		MetricsMaxTubes: n.cfg.Admin.MetricsMaxTubes, Logger: n.root, // admin adds component=admin
		Tokens: n.cfg.Engine.AuthTokens, PolicyFile: n.policies.name(),
		Serving: func() error {
			if down != nil {
				if err := down(); err != nil {
					return err
				}
			}
			if a.stopping.Load() {
				return errStopping
			}
			return nil
		},
	}
}

// startAdmin starts the admin listener of a single server (nil when off).
func (n *Node) startAdmin(s *single) (*adminServer, error) {
	if n.cfg.Admin.Addr == "" {
		return nil, nil
	}
	a := &adminServer{}
	opts := n.adminOptions(a, func() error {
		select {
		case <-s.srv.Done():
			return errors.New("the protocol listener has stopped")
		default:
			return nil
		}
	})
	opts.Queue = s.q.Jobs()
	if l := s.q.Journal(); l != nil {
		opts.WAL = func() admin.WALStats { return walStats(l.Metrics()) }
	}
	return n.listenAdmin(a, opts)
}

// listenAdmin starts a with opts.
func (n *Node) listenAdmin(a *adminServer, opts admin.Options) (*adminServer, error) {
	s, err := admin.Start(opts)
	if err != nil {
		return nil, ofKind(ErrBind, fmt.Errorf("%s: %w", n.cfg.say("{Admin.Addr}"), err))
	}
	a.srv = s
	return a, nil
}

// walStats adapts the log's figures to the admin's.
func walStats(m wal.Metrics) admin.WALStats {
	return admin.WALStats{
		Bytes: m.Bytes, Segments: m.Segments, Compactions: m.Compactions,
		Migrated: m.Migrated, Written: m.Written,
		FsyncBuckets: wal.FsyncBuckets, FsyncCounts: m.FsyncCounts, FsyncCount: m.FsyncCount, FsyncSum: m.FsyncSum,
	}
}

// markStopping makes /readyz fail while the node stops.
func (a *adminServer) markStopping() {
	if a != nil {
		a.stopping.Store(true)
	}
}

// stop stops the listener, after the protocol server.
func (a *adminServer) stop(ctx context.Context) {
	if a != nil {
		_ = a.srv.Stop(ctx)
	}
}
