package node

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/front"
	"github.com/stalkd/stalkd/engine/tlscert"
	"github.com/stalkd/stalkd/wal/raft"
)

// member is a cluster member: the client ports are fronts that carry every
// connection to the leader; while this node leads, an engine on another
// port of the raft host serves its queue (leaderServer).
type member struct {
	raft     *raft.Node
	ls       *leaderServer
	fronts   []*front.Front // the plain one (unless off), then the TLS one
	tlsFront *front.Front   // nil without Engine.TLSAddr
	nodeTLS  *tlscert.NodeTLS
}

// startMember starts a cluster member: its client ports, AfterBind (-u),
// the raft node, the fronts, then the admin port.
func (n *Node) startMember(ctx context.Context, tlsConfig *tls.Config) error {
	c := &n.cfg
	host, _, err := net.SplitHostPort(c.Cluster.Addr)
	if err != nil {
		return ofKind(ErrBind, fmt.Errorf("%s: %w", c.say("{Cluster.Addr} %s", c.Cluster.Addr), err))
	}
	warnSingleNodeLog(c, n)
	m := &member{}
	if m.nodeTLS, err = loadNodeTLS(c, n.log); err != nil {
		return err
	}
	lns, err := n.clientListeners(tlsConfig)
	if err != nil {
		return ofKind(ErrBind, err)
	}
	closeAll := func() {
		for _, ln := range lns {
			_ = ln.Close()
		}
	}
	if c.AfterBind != nil {
		if err := c.AfterBind(); err != nil {
			closeAll()
			return err
		}
	}
	m.ls = &leaderServer{n: n, host: host, nodeTLS: m.nodeTLS}
	m.raft, err = raft.Open(raft.Config{
		ID: c.Cluster.ID, Addr: c.Cluster.Addr, Peers: c.Cluster.Peers, Dir: c.Journal.Dir,
		OnLeader: m.ls.start, OnFollower: m.ls.stop,
		Timing: raftTiming(c.Cluster.Timeout),
		TLS:    raftTLS(m.nodeTLS),
		Logger: n.log,
	})
	if err != nil {
		closeAll()
		return ofKind(ErrClusterDir, err)
	}
	m.ls.node.Store(m.raft)
	n.member = m
	for i, ln := range lns {
		flog := n.root
		tlsPort := tlsConfig != nil && c.Engine.TLSAddr != "" && i == len(lns)-1
		if tlsPort {
			flog = n.root.With().Str("listener", "tls").Logger()
		}
		f := front.Start(front.Config{
			Listener: ln,
			Leader: func(ctx context.Context) (string, uint64, error) {
				li, err := m.raft.LeaderAddr(ctx)
				return li.Addr, li.Term, err
			},
			Moved:      m.raft.LeaderChanged,
			MaxJobSize: c.Engine.MaxJobSize,
			MaxConns:   c.Engine.MaxConns,
			TLS:        frontTLS(m.nodeTLS),
			Direct:     m.ls.adopt,
			Logger:     flog,
		})
		m.fronts = append(m.fronts, f)
		if tlsPort {
			m.tlsFront = f
		}
	}
	if n.adm, err = n.startClusterAdmin(m.ls); err != nil {
		_ = n.stopMember(context.Background())
		return err
	}
	return nil
}

// stopMember stops the fronts and the admin port, then the raft node
// (which ends a leadership term and its engine).
func (n *Node) stopMember(ctx context.Context) error {
	m := n.member
	n.adm.markStopping()
	for _, f := range m.fronts {
		_ = f.Stop(ctx)
	}
	n.adm.stop(ctx)
	return m.raft.Close()
}

// raftTiming is raft's clock for a timeout d (0: the defaults): the
// heartbeat and election timeouts d, the leader lease d/2.
func raftTiming(d time.Duration) raft.Timing {
	if d == 0 {
		return raft.Timing{}
	}
	return raft.Timing{Heartbeat: d, Election: d, LeaderLease: d / 2}
}

// clientListeners binds the client ports: Engine.Addr (unless
// engine.NoPlainListener) and Engine.TLSAddr, whose connections the front
// carries inside TLS.
func (n *Node) clientListeners(tlsConfig *tls.Config) ([]net.Listener, error) {
	e := n.cfg.Engine
	var lns []net.Listener
	if e.Addr != engine.NoPlainListener {
		addr := e.Addr
		if addr == "" {
			addr = engine.DefaultAddr
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
	}
	if e.TLSAddr != "" {
		ln, err := net.Listen("tcp", e.TLSAddr)
		if err != nil {
			for _, l := range lns {
				_ = l.Close()
			}
			return nil, fmt.Errorf("%s: %w", n.cfg.say("{Engine.TLSAddr}"), err)
		}
		lns = append(lns, tls.NewListener(ln, tlsConfig))
	}
	if len(lns) == 0 {
		return nil, errors.New("no client port") // not reached: Validate
	}
	return lns, nil
}

// warnSingleNodeLog warns when the directory holds anything besides the
// cluster's raft directory: a single server's log, whose jobs a cluster
// member does not read.
func warnSingleNodeLog(c *Config, n *Node) {
	entries, err := os.ReadDir(c.Journal.Dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Name() != "raft" {
			n.log.Warn().Str("dir", c.Journal.Dir).Str("file", e.Name()).
				Msg(c.say("{Journal.Dir} holds files of a single-node server; their jobs are not part of the cluster"))
			return
		}
	}
}
