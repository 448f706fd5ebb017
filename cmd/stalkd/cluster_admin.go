package main

import (
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/admin"
	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal/raft"
)

// clusterAdmin is admin.Cluster for this node: the raft node's view and
// membership calls, and the queue the node serves while it leads.
type clusterAdmin struct{ ls *leaderServer }

func (c clusterAdmin) Status() admin.ClusterStatus {
	info := c.ls.clusterInfo()
	st := admin.ClusterStatus{
		ID: info.ID, State: info.State, Leader: info.Leader, LeaderAddr: info.LeaderAddr, Term: info.Term,
		CommitIndex: info.CommitIndex, AppliedIndex: info.AppliedIndex, LastSnapshotIndex: info.LastSnapshotIndex,
	}
	for _, p := range info.Peers {
		s := admin.ClusterServer{ID: p.ID, Addr: p.Addr, Suffrage: "voter"}
		if !p.Voter {
			s.Suffrage = "nonvoter"
		}
		st.Servers = append(st.Servers, s)
	}
	return st
}

// Queue is the queue of the leader's engine while it serves (nil between
// terms and on a follower).
func (c clusterAdmin) Queue() *jobs.Queue {
	c.ls.mu.Lock()
	defer c.ls.mu.Unlock()
	return c.ls.q
}

func (c clusterAdmin) AddVoter(id, addr string) error {
	n := c.ls.node.Load()
	if n == nil {
		return admin.ErrNotLeader
	}
	return adminErr(n.ForwardAddVoter(id, addr))
}

func (c clusterAdmin) RemoveServer(id string) error {
	n := c.ls.node.Load()
	if n == nil {
		return admin.ErrNotLeader
	}
	return adminErr(n.ForwardRemoveServer(id))
}

func adminErr(err error) error {
	if errors.Is(err, raft.ErrNotLeader) {
		return fmt.Errorf("%w: %w", admin.ErrNotLeader, err)
	}
	return err
}

// startClusterAdmin starts --admin for a cluster member (nil when off).
func startClusterAdmin(f adminFlags, ls *leaderServer, log zerolog.Logger) (*adminServer, error) {
	if f.addr == "" {
		return nil, nil
	}
	a := &adminServer{}
	s, err := admin.Start(admin.Options{
		Addr: f.addr, Cluster: clusterAdmin{ls}, Version: engine.Version, MetricsMaxTubes: f.maxTubes,
		Logger: log, Tokens: f.tokens,
		Serving: func() error {
			if a.stopping.Load() {
				return errors.New("shutting down")
			}
			return nil
		},
	})
	if err != nil {
		return nil, &exitError{exitSocket, fmt.Errorf("--admin: %w", err)}
	}
	a.srv = s
	return a, nil
}
