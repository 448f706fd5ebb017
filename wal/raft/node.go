package raft

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	hraft "github.com/hashicorp/raft"
	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/jobs"
)

// Node is one member of a stalkd cluster: a hashicorp/raft server whose FSM
// holds the replicated queue state and which, while it is the leader, runs
// the queue that clients are served from.
//
// Concurrency: every method is safe for concurrent use.
type Node struct {
	cfg     Config
	log     zerolog.Logger
	raft    *hraft.Raft
	fsm     *fsm
	closers []func() error
	stream  *streamLayer // the raft port, unless Config.Transport was given
	stop    chan struct{}
	done    chan struct{}
	looping bool // runLeadership started

	proposed proposed

	closeOnce sync.Once
	closeErr  error

	leaderSig signal // fired when where the leader serves may have changed

	mu        sync.Mutex
	term      *leaderTerm // nil unless leading
	localAddr string      // announced client address of this term
	localTerm uint64      // and the term
}

// leaderTerm is what one term of leadership runs.
type leaderTerm struct {
	q       *jobs.Queue
	j       *Journal
	cancel  context.CancelFunc
	runDone chan struct{}
	commits signal // fired at each commit of j, and when j fails
}

// logCacheEntries is how many of the latest raft entries the leader keeps
// in memory for replication: the entries in flight (Config.MaxInflight) and
// a follower's short lag. Entries are up to Config.MaxBatchBytes each.
const logCacheEntries = 64

// Open starts a node: it opens (or creates) the stores, starts raft, and
// bootstraps the cluster from Config.Peers if the node has no state.
func Open(c Config) (*Node, error) {
	cfg, err := c.withDefaults()
	if err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, log: cfg.Logger, stop: make(chan struct{}), done: make(chan struct{})}
	n.fsm = newFSM(n.log)
	n.fsm.onAnnounce = n.leaderSig.fire
	if err := n.openStores(); err != nil {
		n.closeStores()
		return nil, err
	}
	if last, err := n.cfg.LogStore.LastIndex(); err == nil {
		n.fsm.replayTo = last // entries the log holds now are replayed, not live (clock.go)
	}
	rc := cfg.raftConfig()
	hasState, err := hraft.HasExistingState(n.cfg.LogStore, n.cfg.StableStore, n.cfg.SnapshotStore)
	if err != nil {
		n.closeStores()
		return nil, fmt.Errorf("raft: read state: %w", err)
	}
	// The leader reads every entry it replicates back from the log store;
	// the cache answers the recent ones from memory (no pread per entry).
	logs, err := hraft.NewLogCache(logCacheEntries, n.cfg.LogStore)
	if err != nil {
		n.closeStores()
		return nil, fmt.Errorf("raft: %w", err)
	}
	r, err := hraft.NewRaft(rc, n.fsm, logs, n.cfg.StableStore, n.cfg.SnapshotStore, n.cfg.Transport)
	if err != nil {
		n.closeStores()
		return nil, fmt.Errorf("raft: start: %w", err)
	}
	n.raft = r
	if n.stream != nil {
		h := n.serveForward
		n.stream.forward.Store(&h)
	}
	if !hasState && len(cfg.Peers) > 0 {
		if err := n.bootstrap(cfg.Peers); err != nil {
			_ = n.Close()
			return nil, err
		}
	}
	n.looping = true
	go n.runLeadership()
	return n, nil
}

// runLeadership follows raft's leadership signals, in order. A true while
// already leading means leadership was lost and regained in between: the
// old term is torn down and a new one built.
// If a term cannot start (its barrier or announcement timed out, the
// engine could not bind) while raft still says this node leads, it is
// retried: a leader that serves nothing would stall the whole cluster.
func (n *Node) runLeadership() {
	defer close(n.done)
	var retry <-chan time.Time
	for {
		select {
		case <-n.stop:
			n.endTerm()
			return
		case leader := <-n.raft.LeaderCh():
			n.endTerm()
			retry = nil
			if leader {
				retry = n.tryTerm()
			}
		case <-retry:
			retry = nil
			if n.raft.State() == hraft.Leader {
				retry = n.tryTerm()
			}
		}
	}
}

// tryTerm starts a term; on failure it cleans up and returns when to retry.
func (n *Node) tryTerm() <-chan time.Time {
	err := n.startTerm()
	if err == nil {
		return nil
	}
	n.log.Warn().Err(err).Msg("cannot start leading; retrying while leader")
	n.endTerm()
	return time.After(100 * time.Millisecond)
}

// startTerm waits until every entry of earlier terms is applied, then
// builds and publishes the leader's queue, starts serving it (OnLeader)
// and announces where.
func (n *Node) startTerm() error {
	start := time.Now()
	if err := n.raft.Barrier(n.cfg.ApplyTimeout).Error(); err != nil {
		return fmt.Errorf("barrier: %w", err)
	}
	j := newJournal(n.raft, n.cfg.MaxBatchBytes, n.cfg.MaxInflight, n.cfg.ApplyTimeout, &n.proposed)
	q := jobs.New(jobs.Config{Clock: n.termClock(), Journal: j, Replicated: true})
	if err := n.fsm.withState(func(s *state) error { return s.restoreInto(q) }); err != nil {
		j.Close()
		return fmt.Errorf("build the queue from the replicated state: %w", err)
	}
	n.fsm.src.Store(j)
	ctx, cancel := context.WithCancel(context.Background())
	t := &leaderTerm{q: q, j: j, cancel: cancel, runDone: make(chan struct{})}
	j.Subscribe(t.commits.fire)
	go func() {
		defer close(t.runDone)
		q.Run(ctx)
	}()
	n.mu.Lock()
	n.term = t
	n.mu.Unlock()
	st := q.Stats()
	n.log.Info().Uint64("term", n.raft.CurrentTerm()).Int64("jobs", st.Ready+st.Reserved+st.Delayed+st.Buried).
		Float64("took_ms", float64(time.Since(start).Microseconds())/1000).Msg("leading: queue restored")
	if n.cfg.OnLeader == nil {
		return nil
	}
	addr, err := n.cfg.OnLeader(q)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return n.announce(addr)
}

// termClock is the clock of a term that starts now (clock.go): this
// node's, unless it is off from the cluster's time.
func (n *Node) termClock() jobs.Clock {
	n.fsm.mu.Lock()
	est, live := n.fsm.time.estimate(time.Now())
	n.fsm.mu.Unlock()
	c, off := termClockFor(n.cfg.Clock, est, live)
	if off != 0 {
		n.log.Warn().Float64("off_s", off.Seconds()).Bool("live", live).
			Msg("this node's clock is off from the cluster's time: its timers follow the cluster's")
	}
	return c
}

// endTerm discards the leader's queue, if any.
func (n *Node) endTerm() {
	n.mu.Lock()
	t := n.term
	n.term = nil
	n.mu.Unlock()
	if t == nil {
		return
	}
	n.mu.Lock()
	n.localAddr = ""
	n.mu.Unlock()
	n.leaderSig.fire()
	n.fsm.src.Store(nil)
	t.j.Close()
	t.cancel()
	<-t.runDone
	n.log.Info().Msg("no longer leading: queue discarded")
	if n.cfg.OnFollower != nil {
		n.cfg.OnFollower()
	}
}

// Queue returns the queue to serve while this node leads, or nil.
func (n *Node) Queue() *jobs.Queue {
	if t := n.leading(); t != nil {
		return t.q
	}
	return nil
}

// leading returns this node's term of leadership, or nil.
func (n *Node) leading() *leaderTerm {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.term
}

// Leader returns the current leader's id and raft address (empty if none
// is known).
func (n *Node) Leader() (id, addr string) {
	a, i := n.raft.LeaderWithID()
	return string(i), string(a)
}

// Raft returns the underlying raft server (membership changes, tests).
func (n *Node) Raft() *hraft.Raft { return n.raft }

// Close stops serving, shuts raft down and closes the stores. A leader
// first hands leadership to an up-to-date follower (bounded by the
// election timeout), so that a planned restart costs the cluster no
// election wait. Safe to call more than once.
func (n *Node) Close() error {
	n.closeOnce.Do(func() {
		if n.raft != nil && n.raft.State() == hraft.Leader {
			f := n.raft.LeadershipTransfer()
			select {
			case <-futureDone(f):
			case <-time.After(2 * n.cfg.Timing.Election):
			}
		}
		close(n.stop)
		if n.looping {
			<-n.done
		}
		var err error
		if n.raft != nil {
			err = n.raft.Shutdown().Error()
		}
		n.closeErr = errors.Join(err, n.closeStores())
	})
	return n.closeErr
}

func (n *Node) closeStores() error {
	var errs []error
	for i := len(n.closers) - 1; i >= 0; i-- {
		errs = append(errs, n.closers[i]())
	}
	n.closers = nil
	return errors.Join(errs...)
}

// futureDone closes when f resolves.
func futureDone(f hraft.Future) <-chan struct{} {
	c := make(chan struct{})
	go func() { _ = f.Error(); close(c) }()
	return c
}
