package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/admin"
	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal"
)

// adminFlags are the admin listener's flags, the only long ones (the
// reference has no long flags, so they cannot clash with its letters).
type adminFlags struct {
	addr     string // --admin ADDR: "" leaves the listener off
	maxTubes int    // --metrics-max-tubes N: 0 means the default
}

const adminUsage = ` --admin ADDR            serve metrics, health checks, the JSON API and the
                         dashboard over HTTP on ADDR (host:port or unix:/path;
                         off by default). Mutating API calls are accepted only
                         on a loopback address or a Unix socket
 --metrics-max-tubes N   give per-tube metrics to at most N tubes, the largest
                         by job count (default 1000; -1 for no cap)
`

// applyLong applies "--name VALUE" or "--name=VALUE" at args[i-1] and
// returns the index of the next argument.
func (o *options) applyLong(args []string, i int) (int, error) {
	name, value, inline := strings.Cut(args[i-1], "=")
	switch name {
	case "--admin", "--metrics-max-tubes":
	default:
		return i, usageError("unknown flag: " + name)
	}
	if !inline {
		if i >= len(args) {
			return i, usageError("flag requires an argument: " + name)
		}
		value, i = args[i], i+1
	}
	switch name {
	case "--admin":
		if value == "" {
			return i, usageError("--admin needs an address")
		}
		o.admin.addr = value
	case "--metrics-max-tubes":
		n, err := strconv.Atoi(value)
		if err != nil || n < -1 || n == 0 {
			return i, usageError("invalid --metrics-max-tubes: " + value)
		}
		o.admin.maxTubes = n
	}
	return i, nil
}

// adminServer is the running admin listener (nil when --admin is off); its
// methods accept a nil receiver.
type adminServer struct {
	srv      *admin.Server
	stopping atomic.Bool
}

// startAdmin starts the admin listener on the served queue.
func startAdmin(f adminFlags, srv *engine.Server, q *jobs.Queue, jr journal, log zerolog.Logger) (*adminServer, error) {
	if f.addr == "" {
		return nil, nil
	}
	a := &adminServer{}
	opts := admin.Options{
		Addr: f.addr, Queue: q, Version: engine.Version, MetricsMaxTubes: f.maxTubes, Logger: log,
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
