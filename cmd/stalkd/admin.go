package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/admin"
	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal"
)

// adminFlags are the admin listener's flags (long ones: the reference has
// none, so they cannot clash with its letters).
type adminFlags struct {
	addr     string   // --admin ADDR: "" leaves the listener off
	maxTubes int      // --metrics-max-tubes N: 0 means the default
	tokens   []string // from --auth-token-file: the API's bearer tokens
	// root is the program's logger without a component: package admin
	// adds component=admin itself, and zerolog would repeat the key.
	root zerolog.Logger
}

const adminUsage = ` --admin ADDR            serve metrics, health checks, the JSON API and the
                         dashboard over HTTP on ADDR (host:port or unix:/path;
                         off by default). Mutating API calls are accepted only
                         on a loopback address or a Unix socket
 --metrics-max-tubes N   give per-tube metrics to at most N tubes, the largest
                         by job count (default 1000; -1 for no cap)
`

func init() {
	longFlags["admin"] = func(o *options, v string) error {
		if v == "" {
			return usageError("--admin needs an address")
		}
		o.admin.addr = v
		return nil
	}
	longFlags["metrics-max-tubes"] = func(o *options, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < -1 || n == 0 {
			return usageError("invalid --metrics-max-tubes: " + v)
		}
		o.admin.maxTubes = n
		return nil
	}
}

// adminServer is the running admin listener (nil when --admin is off); its
// methods accept a nil receiver.
type adminServer struct {
	srv      *admin.Server
	stopping atomic.Bool
}

// startAdmin starts the admin listener on the served queue.
func startAdmin(f adminFlags, srv *engine.Server, q *jobs.Queue, jr journal, pf *policyFile) (*adminServer, error) {
	if f.addr == "" {
		return nil, nil
	}
	a := &adminServer{}
	opts := admin.Options{
		Addr: f.addr, Queue: q, Version: engine.Version, ProtocolVersion: engine.ProtocolVersion, MetricsMaxTubes: f.maxTubes, Logger: f.root,
		Tokens: f.tokens, PolicyFile: pf.name(),
		Serving: func() error {
			select {
			case <-srv.Done():
				return errors.New("the protocol listener has stopped")
			default:
			}
			if a.stopping.Load() {
				return errors.New("shutting down")
			}
			return nil
		},
	}
	if l, ok := jr.j.(*wal.Log); ok {
		opts.WAL = func() admin.WALStats { return walStats(l.Metrics()) }
	}
	s, err := admin.Start(opts)
	if err != nil {
		return nil, &exitError{exitSocket, fmt.Errorf("--admin: %w", err)}
	}
	a.srv = s
	return a, nil
}

func walStats(m wal.Metrics) admin.WALStats {
	return admin.WALStats{
		Bytes: m.Bytes, Segments: m.Segments, Compactions: m.Compactions,
		Migrated: m.Migrated, Written: m.Written,
		FsyncBuckets: wal.FsyncBuckets, FsyncCounts: m.FsyncCounts, FsyncCount: m.FsyncCount, FsyncSum: m.FsyncSum,
	}
}

// markStopping makes /readyz fail while the server shuts down.
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
