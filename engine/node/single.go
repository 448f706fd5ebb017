package node

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"time"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/embed"
	"github.com/stalkd/stalkd/wal"
)

// single is a single server: an engine serving an embedded queue (the
// node's own, opened on Config.Journal, or Config.Queue).
type single struct {
	srv  *engine.Server
	q    *embed.Queue
	own  bool  // the node opened q and closes it in Stop
	size int64 // binlog-max-size: the segment size as given
}

// startSingle starts a single server, in the reference's order: bind,
// AfterBind (-u), journal, replay, policies, serve; then the admin port.
func (n *Node) startSingle(ctx context.Context, tlsConfig *tls.Config) error {
	ecfg := n.cfg.Engine
	ecfg.Logger = component(n.root, "engine")
	ecfg.TLSConfig = tlsConfig
	s := &single{q: n.cfg.Queue, own: n.cfg.Queue == nil, size: n.cfg.Journal.SegmentSize}
	if !s.own && ecfg.MaxJobSize == 0 {
		ecfg.MaxJobSize = uint32(s.q.Options().MaxJobSize)
		s.size = s.q.Options().SegmentSize
	}
	if s.size == 0 {
		s.size = wal.DefaultSegmentSize
	}
	srv, err := engine.Listen(ctx, ecfg)
	if err != nil {
		return ofKind(ErrBind, err)
	}
	s.srv = srv
	if err := n.prepareSingle(s); err != nil {
		_ = srv.Stop(context.Background())
		return err
	}
	n.single = s
	err = srv.Serve(engine.Backend{Queue: s.q.Jobs(), BinlogStats: s.binlogStats})
	if err == nil {
		n.adm, err = n.startAdmin(s)
	}
	if err == nil && !s.own {
		err = s.q.OnClose(func() { n.stopNow() })
	}
	if err != nil {
		n.stopNow()
		return err
	}
	return nil
}

// prepareSingle does what comes between binding and serving: AfterBind,
// then the queue (opened on the journal, which it replays) and its
// policy file.
func (n *Node) prepareSingle(s *single) error {
	if n.cfg.AfterBind != nil {
		if err := n.cfg.AfterBind(); err != nil {
			return err
		}
	}
	if s.own {
		q, err := embed.Open(queueOptions(n.cfg))
		if err != nil {
			return err
		}
		s.q = q
	}
	if f := n.policies; f != nil {
		if err := applyPolicyFile(f, f.current(), queueReplace(s.q), "start", n.log); err != nil {
			if s.own {
				_ = s.q.Close()
			}
			return err
		}
	}
	return nil
}

// queueOptions are the embedded queue's options for c.Journal: the
// journal's settings with a directory, none without.
func queueOptions(c Config) embed.Options {
	j := c.Journal
	if j.Dir == "" {
		return embed.Options{Logger: c.Logger}
	}
	size := j.SegmentSize
	if size != 0 {
		size = wal.ClampSegmentSize(size)
	}
	return embed.Options{Dir: j.Dir, SyncInterval: j.SyncInterval, NoSync: j.NoSync,
		SegmentSize: size, Salvage: j.Salvage, Logger: c.Logger}
}

// binlogStats is the binlog part of the stats document: the log's
// figures, and the segment size as given (the reference reports its -s
// even without a log). Called from event loops, concurrently.
func (s *single) binlogStats() engine.BinlogStats {
	l := s.q.Journal()
	if l == nil {
		return engine.BinlogStats{MaxSize: s.size}
	}
	st := l.Stats()
	return engine.BinlogStats{
		OldestIndex: int64(st.OldestIndex), CurrentIndex: int64(st.CurrentIndex),
		RecordsMigrated: st.Migrated, RecordsWritten: st.Written, MaxSize: s.size,
	}
}

// stopNow stops a single server at once (a failed start, or Config.Queue
// closing under it).
func (n *Node) stopNow() {
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	_ = n.Stop(stopped)
}

// stopSingle stops a single server gracefully and logs how it went.
func (n *Node) stopSingle(ctx context.Context) error {
	s := n.single
	start := time.Now()
	conns := s.q.Jobs().Stats().Connections
	n.adm.markStopping()
	serr := s.srv.Stop(ctx)
	if serr != nil {
		n.log.Warn().Err(serr).Msg("stopped before every reply was written")
	}
	n.adm.stop(ctx)
	journal := s.q.Journal() != nil
	var err error
	if s.own {
		if cerr := s.q.Close(); cerr != nil {
			err = fmt.Errorf("closing the journal: %w", cerr)
		}
	}
	n.log.Info().Int64("connections_closed", conns).Bool("replies_written", serr == nil).
		Bool("journal", journal).Bool("journal_synced", journal && s.own && err == nil).
		Float64("took_ms", msSince(start)).Msg("stopped")
	return err
}

// msSince is the time since start in milliseconds, the unit of every
// "_ms" log field.
func msSince(start time.Time) float64 {
	return float64(time.Since(start)) / float64(time.Millisecond)
}

var errStopping = errors.New("shutting down")
