package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/jobs"
)

// stopTimeout bounds a graceful stop: answering what is in flight.
const stopTimeout = 5 * time.Second

// run serves until a signal stops it, in the reference's order: bind, -u,
// journal, replay, serve. root is the program's logger, without a component.
func run(o options, root zerolog.Logger) error {
	o.admin.root = root
	if o.cluster.ID != "" {
		return runCluster(o, root)
	}
	log := componentLogger(root, "cmd")
	d, err := prelude(&o, log)
	defer d.stop()
	if err != nil {
		return err
	}
	inherited, err := inheritedListener(o, log)
	if err != nil {
		return &exitError{exitSocket, err}
	}
	srv, err := engine.Listen(context.Background(), engine.Config{
		Listener:    inherited,
		Addr:        listenAddr(o),
		MaxJobSize:  maxJobSize(o.maxJob),
		Logger:      componentLogger(root, "engine"),
		MaxConns:    maxConns(o.net.maxConns, raiseFileLimit(log)),
		IdleTimeout: o.net.idleTimeout,
		TLSAddr:     o.tls.addr,
		TLSConfig:   d.tlsConfig,
		AuthTokens:  d.tokens,
	})
	if err != nil {
		return &exitError{exitSocket, err}
	}
	q, jr, err := prepare(o, root)
	if err != nil {
		_ = srv.Stop(context.Background())
		return err
	}
	return serve(srv, q, jr, o, d, log)
}

// prepare does what comes between binding and serving: -u, then the
// journal and the queue it fills.
func prepare(o options, root zerolog.Logger) (*jobs.Queue, journal, error) {
	if o.user != "" {
		if err := becomeUser(o.user); err != nil {
			return nil, journal{}, err
		}
	}
	jr, err := openJournal(o.journal, componentLogger(root, "wal"))
	if err != nil {
		return nil, journal{}, err
	}
	q, err := newQueue(jr)
	if err == nil && o.policies != nil {
		err = applyPolicyFile(o.policies, o.policies.current(), queueReplace(q), "start", componentLogger(root, "cmd"))
	}
	if err != nil {
		_ = jr.close()
		return nil, journal{}, err
	}
	return q, jr, nil
}

// serve runs the queue's timers and the server until a signal (or a server
// failure), then stops both and closes the journal.
func serve(srv *engine.Server, q *jobs.Queue, jr journal, o options, d *daemon, log zerolog.Logger) error {
	ctx, stopTimers := context.WithCancel(context.Background())
	defer stopTimers()
	timersDone := make(chan struct{})
	go func() { defer close(timersDone); q.Run(ctx) }()

	err := srv.Serve(engine.Backend{Queue: q, BinlogStats: jr.stats})
	var adm *adminServer
	if err == nil {
		adm, err = startAdmin(o.admin, srv, q, jr, o.policies)
	}
	if err == nil {
		s := serving{srv: srv, drain: func() { q.SetDraining(true) },
			drained: "drain mode: new jobs are refused from now on"}
		if f := o.policies; f != nil {
			s.hup = func() { reloadPolicyFile(f, queueReplace(q), log) }
		}
		err = d.waitSignals(s, log)
	}
	start := time.Now()
	conns := q.Stats().Connections
	adm.markStopping()
	sctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	serr := srv.Stop(sctx)
	if serr != nil {
		log.Warn().Err(serr).Msg("stopped before every reply was written")
	}
	adm.stop(sctx)
	stopTimers()
	<-timersDone
	cerr := jr.close()
	if cerr != nil {
		err = errors.Join(err, fmt.Errorf("closing the journal: %w", cerr))
	}
	log.Info().Int64("connections_closed", conns).Bool("replies_written", serr == nil).
		Bool("journal", jr.j != nil).Bool("journal_synced", jr.j != nil && cerr == nil).
		Float64("took_ms", msSince(start)).Msg("stopped")
	return err
}

// msSince is the time since start in milliseconds, the unit of every
// "_ms" log field.
func msSince(start time.Time) float64 {
	return float64(time.Since(start)) / float64(time.Millisecond)
}

// newQueue creates the queue and loads the journal's jobs into it.
func newQueue(jr journal) (*jobs.Queue, error) {
	q := jobs.New(jobs.Config{Journal: jr.j})
	if jr.replay != nil {
		if err := jr.replay(q); err != nil {
			return nil, fmt.Errorf("replaying the journal: %w", err)
		}
	}
	return q, nil
}

// plainOff, as -l, turns the plain listener off (with --tls).
const plainOff = "none"

// listenAddr joins -l and -p into the engine's address.
func listenAddr(o options) string {
	if o.addr == plainOff {
		return engine.NoPlainListener
	}
	if strings.HasPrefix(o.addr, "unix:") {
		return o.addr
	}
	return net.JoinHostPort(o.addr, o.port)
}

// maxJobSize converts -z to the engine's setting, where 0 means the default.
func maxJobSize(z uint64) uint32 {
	if z == 0 {
		return engine.MaxJobSizeZero
	}
	return uint32(z)
}

// raiseFileLimit lifts the soft limit on open files to the hard one and
// returns a connection cap that leaves headroom below it. gnet stops its
// whole engine when accept fails for lack of descriptors, so the server
// must refuse connections before that can happen.
func raiseFileLimit(log zerolog.Logger) int {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	if rl.Cur < rl.Max {
		want := rl
		want.Cur = rl.Max
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &want); err == nil {
			rl = want
		} else {
			log.Debug().Err(err).Msg("cannot raise the open-file limit")
		}
	}
	if rl.Cur > 1<<24 || rl.Cur == unix.RLIM_INFINITY {
		rl.Cur = 1 << 24
	}
	n := int(rl.Cur)
	return max(n-n/8-64, 16)
}
