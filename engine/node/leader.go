package node

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/front"
	"github.com/stalkd/stalkd/engine/tlscert"
	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
	"github.com/stalkd/stalkd/wal/raft"
)

// leaderStopTimeout bounds the graceful stop of a leadership term's
// engine: answering what is in flight.
const leaderStopTimeout = 5 * time.Second

// leaderServer runs the engine of this node's leadership terms. Drain
// mode is this node's: it applies to the queues it leads, now and later.
type leaderServer struct {
	n        *Node
	host     string           // the raft host: the engine listens on host:0
	nodeTLS  *tlscert.NodeTLS // the node port's mutual TLS; nil: plain
	mu       sync.Mutex
	srv      *engine.Server
	q        *jobs.Queue
	draining bool
	node     atomic.Pointer[raft.Node] // set once raft.Open returns
}

// clusterInfo is this node's view of its cluster, for stats-cluster and
// the admin API alike (a client of a follower is carried here, so
// stats-cluster shows the leader's view).
func (ls *leaderServer) clusterInfo() cluster.Status {
	n := ls.node.Load()
	if n == nil {
		return cluster.Status{ID: ls.n.cfg.Cluster.ID, State: "starting"}
	}
	return n.Stats()
}

// queue is the queue of the leader's engine while it serves (nil between
// terms and on a follower).
func (ls *leaderServer) queue() *jobs.Queue {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.q
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
	cfg := ls.n.cfg.Engine
	cfg.Addr = net.JoinHostPort(ls.host, "0")
	cfg.Listener, cfg.TLSAddr, cfg.TLSConfig = nil, "", nil
	cfg.Logger = component(ls.n.root, "engine")
	cfg.ClusterStats = ls.clusterInfo
	// IdleTimeout stays: the front closes a client whose carried connection
	// the engine closed. AuthTokens too: the front carries "auth" like any
	// command.
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

// applyPolicyFile makes the policy file the policies of q, the queue of
// this node's new term. The file is read again first: the nodes of a
// cluster each read their own copy, and a reload sent to another node
// must not be undone by this one's older reading at the next election. A
// file that no longer passes the checks is logged and not applied: the
// replicated policies stay. Not waiting for the commit: this runs on
// raft's leadership callback; clients are served once the change is in
// the queue.
func (ls *leaderServer) applyPolicyFile(q *jobs.Queue) error {
	f := ls.n.policies
	if f == nil {
		return nil
	}
	set, err := f.reload()
	if err != nil {
		ls.n.log.Error().Err(err).Str("file", f.path).
			Msg("policy file not applied on election: the replicated policies stay")
		return nil
	}
	replace := func(set map[string]jobs.Policy) ([]jobs.PolicyChange, error) {
		changes, _, err := q.ReplacePoliciesSeq(set)
		return changes, err
	}
	return applyPolicyFile(f, set, replace, "leader", ls.n.log)
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
	if tokens := ls.n.cfg.Engine.AuthTokens; d.Authed && len(tokens) > 0 {
		h.Auth = []byte("auth " + tokens[0] + "\r\n") // every token of this node's is good on the next leader too
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
	ctx, cancel := context.WithTimeout(context.Background(), leaderStopTimeout)
	defer cancel()
	if err := srv.Stop(ctx); err != nil {
		ls.n.log.Warn().Err(err).Msg("leader engine stopped before every reply was written")
	}
}
