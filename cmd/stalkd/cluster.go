package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/front"
	"github.com/stalkd/stalkd/engine/tlscert"
	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
	"github.com/stalkd/stalkd/wal/raft"
)

// clusterFlags are --raft-id, --raft-addr and --raft-peers; with --raft-id
// the server is a cluster member (see package wal/raft).
type clusterFlags struct {
	ID, Addr, Peers string
	// Timeout is --raft-timeout: raft's heartbeat and election timeouts
	// (the leader lease is half); 0 means raft.DefaultTiming's.
	Timeout time.Duration
	TLS     nodeTLSFlags // --raft-tls-* (clustertls.go)
}

const clusterUsage = ` --raft-id ID
          cluster mode: this node's id in a replicated cluster (needs -b
          and --raft-addr)
 --raft-addr HOST:PORT
          this node's raft address: bound, and the one its peers use
 --raft-timeout DURATION
          raft's heartbeat and election timeout (default 300ms, for a LAN
          and cores of its own); a leader steps down when it has not heard
          from a majority for half of it. Raise it on loaded or shared
          machines: failover takes about 2-4 times this value
 --raft-peers ID=HOST:PORT,...
          the initial voters; a node with no state under -b bootstraps the
          cluster with them unless another peer is in a running cluster
          (then it waits to be added: stalkctl add-voter); a node with
          state ignores them
`

func init() {
	addStringFlags(map[string]func(o *options) *string{
		"raft-id":    func(o *options) *string { return &o.cluster.ID },
		"raft-addr":  func(o *options) *string { return &o.cluster.Addr },
		"raft-peers": func(o *options) *string { return &o.cluster.Peers },
	})
	longFlags["raft-timeout"] = func(o *options, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 10*time.Millisecond {
			return usageError("invalid --raft-timeout (a duration of at least 10ms): " + v)
		}
		o.cluster.Timeout = d
		return nil
	}
}

// checkCluster validates the cluster flags once all are read.
func (o *options) checkCluster() error {
	c := o.cluster
	if err := c.TLS.check(c.ID != ""); err != nil {
		return err
	}
	if c.ID == "" {
		if c.Addr != "" || c.Peers != "" || c.Timeout != 0 {
			return usageError("--raft-addr, --raft-peers and --raft-timeout need --raft-id")
		}
		return nil
	}
	switch {
	case c.Addr == "":
		return usageError("--raft-id needs --raft-addr")
	case o.journal.Dir == "":
		return usageError("cluster mode needs -b DIR (the raft log and snapshots)")
	case strings.HasPrefix(o.addr, "unix:"):
		return usageError("cluster mode serves TCP only, not -l unix:")
	case strings.HasPrefix(o.tls.addr, "unix:"):
		return usageError("cluster mode serves TCP only, not --tls unix:")
	}
	if _, err := raft.ParsePeers(c.Peers); err != nil {
		return usageError(err.Error())
	}
	return nil
}

// runCluster serves as a cluster member until a signal: the client port is
// a Front that carries every connection to the leader; while this node
// leads, an engine on another port of the raft host serves its queue.
func runCluster(o options, root zerolog.Logger) error {
	log := componentLogger(root, "cluster")
	peers, _ := raft.ParsePeers(o.cluster.Peers)
	host, _, err := net.SplitHostPort(o.cluster.Addr)
	if err != nil {
		return &exitError{exitSocket, fmt.Errorf("--raft-addr %s: %w", o.cluster.Addr, err)}
	}
	d, err := prelude(&o, log)
	defer d.stop()
	if err != nil {
		return err
	}
	warnSingleNodeLog(o.journal.Dir, log)
	nodeTLS, err := o.cluster.TLS.load(log)
	if err != nil {
		return err
	}
	if nodeTLS != nil || o.policies != nil {
		signal.Notify(d.sigs, syscall.SIGHUP)
	}
	lns, err := clusterListeners(o, d.tlsConfig)
	if err != nil {
		return &exitError{exitSocket, err}
	}
	closeAll := func() {
		for _, ln := range lns {
			_ = ln.Close()
		}
	}
	if o.user != "" {
		if err := becomeUser(o.user); err != nil {
			closeAll()
			return err
		}
	}
	ls := &leaderServer{o: o, host: host, log: log, engineLog: componentLogger(root, "engine"), tokens: d.tokens,
		maxConns: maxConns(o.net.maxConns, raiseFileLimit(log)), nodeTLS: nodeTLS}
	node, err := raft.Open(raft.Config{
		ID: o.cluster.ID, Addr: o.cluster.Addr, Peers: peers, Dir: o.journal.Dir,
		OnLeader: ls.start, OnFollower: ls.stop,
		Timing: raftTiming(o.cluster.Timeout),
		TLS:    raftTLS(nodeTLS),
		Logger: log,
	})
	if err != nil {
		closeAll()
		return &exitError{exitWALDir, err}
	}
	ls.node.Store(node)
	var fronts []*front.Front
	for i, ln := range lns {
		flog := root
		if d.tlsConfig != nil && i == len(lns)-1 {
			flog = root.With().Str("listener", "tls").Logger()
		}
		fronts = append(fronts, front.Start(front.Config{
			Listener: ln,
			Leader: func(ctx context.Context) (string, uint64, error) {
				li, err := node.LeaderAddr(ctx)
				return li.Addr, li.Term, err
			},
			Moved:      node.LeaderChanged,
			MaxJobSize: maxJobSize(o.maxJob),
			MaxConns:   ls.maxConns,
			TLS:        frontTLS(nodeTLS),
			Direct:     ls.adopt,
			Logger:     flog,
		}))
	}
	adm, err := startClusterAdmin(o.admin, ls)
	if err == nil {
		err = d.waitSignals(serving{drain: ls.drain,
			drained: "drain mode: new jobs are refused from now on, while this node leads",
			hup: func() {
				reloadNodeTLS(nodeTLS, log)
				if f := o.policies; f != nil {
					reloadPolicyFile(f, node.ForwardReplacePolicies, log)
				}
			}}, log)
	}
	adm.markStopping()
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	for _, f := range fronts {
		_ = f.Stop(ctx)
	}
	adm.stop(ctx)
	return errors.Join(err, node.Close())
}

// raftTiming is raft's clock for --raft-timeout d (0: the defaults): the
// heartbeat and election timeouts d, the leader lease d/2.
func raftTiming(d time.Duration) raft.Timing {
	if d == 0 {
		return raft.Timing{}
	}
	return raft.Timing{Heartbeat: d, Election: d, LeaderLease: d / 2}
}

// clusterListeners binds the client ports: -l/-p (unless -l none) and
// --tls, whose connections the front carries inside TLS.
func clusterListeners(o options, tlsConfig *tls.Config) ([]net.Listener, error) {
	var lns []net.Listener
	if o.addr != plainOff {
		ln, err := net.Listen("tcp", listenAddr(o))
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
	}
	if tlsConfig != nil {
		ln, err := net.Listen("tcp", o.tls.addr)
		if err != nil {
			for _, l := range lns {
				_ = l.Close()
			}
			return nil, fmt.Errorf("--tls: %w", err)
		}
		lns = append(lns, tls.NewListener(ln, tlsConfig))
	}
	return lns, nil
}

// leaderServer runs the engine of this node's leadership terms. Drain
// mode (SIGUSR1) is this node's: it applies to the queues it leads, now
// and later; send the signal to every node to drain the cluster.
type leaderServer struct {
	o         options
	host      string
	log       zerolog.Logger
	engineLog zerolog.Logger
	tokens    []string
	maxConns  int
	mu        sync.Mutex
	srv       *engine.Server
	q         *jobs.Queue
	draining  bool
	node      atomic.Pointer[raft.Node] // set once Open returns
	nodeTLS   *tlscert.NodeTLS          // the node port's mutual TLS; nil: plain
}

// clusterInfo is this node's view of its cluster, for stats-cluster and
// the admin API alike (a client of a follower is carried here, so
// stats-cluster shows the leader's view).
func (ls *leaderServer) clusterInfo() cluster.Status {
	n := ls.node.Load()
	if n == nil {
		return cluster.Status{ID: ls.o.cluster.ID, State: "starting"}
	}
	return n.Stats()
}

// drain turns drain mode on for this node's queues.
func (ls *leaderServer) drain() {
	ls.mu.Lock()
	ls.draining = true
	if ls.q != nil {
		ls.q.SetDraining(true)
	}
	ls.mu.Unlock()
}

// start serves q on host:0 and returns that address (raft's OnLeader).
func (ls *leaderServer) start(q *jobs.Queue) (string, error) {
	if err := ls.applyPolicyFile(q); err != nil {
		return "", err // the term ends; raft retries while this node leads
	}
	ls.mu.Lock()
	q.SetDraining(ls.draining)
	ls.mu.Unlock()
	cfg := engine.Config{
		Addr:         net.JoinHostPort(ls.host, "0"),
		MaxJobSize:   maxJobSize(ls.o.maxJob),
		Logger:       ls.engineLog,
		MaxConns:     ls.maxConns,
		IdleTimeout:  ls.o.net.idleTimeout, // the front closes a client whose carried connection the engine closed
		AuthTokens:   ls.tokens,            // the front carries "auth" like any command
		ClusterStats: ls.clusterInfo,
	}
	leaderTLS(&cfg, ls.nodeTLS)
	srv, err := engine.Listen(context.Background(), cfg)
	if err == nil {
		err = srv.Serve(engine.Backend{Queue: q})
	}
	if err != nil {
		if srv != nil {
			_ = srv.Stop(context.Background())
		}
		return "", err
	}
	ls.mu.Lock()
	ls.srv, ls.q = srv, q
	q.SetDraining(ls.draining)
	ls.mu.Unlock()
	return srv.Addr().String(), nil
}

// applyPolicyFile makes --policies the policies of q, the queue of this
// node's new term. The file is read again first: the nodes of a cluster
// each read their own copy, and a reload sent (SIGHUP) to another node
// must not be undone by this one's older reading at the next election. A
// file that no longer passes the checks is logged and not applied: the
// replicated policies stay. Not waiting for the commit: this runs on
// raft's leadership callback; clients are served once the change is in
// the queue.
func (ls *leaderServer) applyPolicyFile(q *jobs.Queue) error {
	f := ls.o.policies
	if f == nil {
		return nil
	}
	set, err := f.reload()
	if err != nil {
		ls.log.Error().Err(err).Str("file", f.path).
			Msg("policy file not applied on election: the replicated policies stay")
		return nil
	}
	replace := func(set map[string]jobs.Policy) ([]jobs.PolicyChange, error) {
		changes, _, err := q.ReplacePoliciesSeq(set)
		return changes, err
	}
	return applyPolicyFile(f, set, replace, "leader", ls.log)
}

// adopt gives a client connection of this node's front to the engine of
// this node's leadership, to serve directly (front.Config.Direct), while
// this node leads and has announced that engine: a leader's own clients
// then cost what a single server's do, not a carry over loopback. When
// the engine stops, it hands the connection back to the front, which
// carries it to the next leader.
func (ls *leaderServer) adopt(c net.Conn, back func(*front.Handoff)) bool {
	ls.mu.Lock()
	srv := ls.srv
	ls.mu.Unlock()
	n := ls.node.Load()
	if srv == nil || n == nil {
		return false
	}
	now, cancel := context.WithCancel(context.Background())
	cancel() // ask, do not wait
	li, err := n.LeaderAddr(now)
	if err != nil || li.Addr != srv.Addr().String() {
		return false
	}
	return srv.Adopt(c, func(d *engine.Detached) { back(ls.handoff(d, li.Term)) })
}

// handoff is what the front needs to carry on a connection the engine of
// term gen let go of (nil: the connection ended).
func (ls *leaderServer) handoff(d *engine.Detached, gen uint64) *front.Handoff {
	if d == nil {
		return nil
	}
	h := &front.Handoff{Conn: d.Conn, Gen: gen, Unread: d.Unread, Skip: d.Skip, Owed: d.Owed, Use: d.Use, Watch: d.Watch}
	if d.Authed && len(ls.tokens) > 0 {
		h.Auth = []byte("auth " + ls.tokens[0] + "\r\n") // every token of this node's is good on the next leader too
	}
	return h
}

// stop closes the leader's engine and its connections (raft's OnFollower).
func (ls *leaderServer) stop() {
	ls.mu.Lock()
	srv := ls.srv
	ls.srv, ls.q = nil, nil
	ls.mu.Unlock()
	if srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if err := srv.Stop(ctx); err != nil {
		ls.log.Warn().Err(err).Msg("leader engine stopped before every reply was written")
	}
}

// warnSingleNodeLog warns when DIR holds anything besides the cluster's
// raft directory: a single-node server's log, whose jobs a cluster member
// does not read.
func warnSingleNodeLog(dir string, log zerolog.Logger) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Name() != "raft" {
			log.Warn().Str("component", "cluster").Str("dir", dir).Str("file", e.Name()).
				Msg("-b holds files of a single-node server; their jobs are not part of the cluster")
			return
		}
	}
}
