package main

import (
	"errors"
	"fmt"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/admin"
	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// clusterAdmin is admin.Cluster for this node: the raft node's view and
// membership calls, the queue the node serves while it leads, and (as
// admin.PolicyForwarder) the policy changes a follower sends the leader.
type clusterAdmin struct{ ls *leaderServer }

func (c clusterAdmin) Status() cluster.Status { return c.ls.clusterInfo() }

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
		return cluster.ErrNotLeader
	}
	return n.ForwardAddVoter(id, addr)
}

func (c clusterAdmin) RemoveServer(id string) error {
	n := c.ls.node.Load()
	if n == nil {
		return cluster.ErrNotLeader
	}
	return n.ForwardRemoveServer(id)
}

// SetPolicy is a follower's PUT /v1/tubes/{tube}/policy (admin.PolicyForwarder):
// the leader makes the change.
func (c clusterAdmin) SetPolicy(tube string, p jobs.Policy) error {
	n := c.ls.node.Load()
	if n == nil {
		return cluster.ErrNotLeader
	}
	return n.ForwardSetPolicy(tube, p)
}

// RemovePolicy is a follower's DELETE /v1/tubes/{tube}/policy.
func (c clusterAdmin) RemovePolicy(tube string) (bool, error) {
	n := c.ls.node.Load()
	if n == nil {
		return false, cluster.ErrNotLeader
	}
	return n.ForwardRemovePolicy(tube)
}

// PatchPolicy is a follower's PATCH /v1/tubes/{tube}/policy: the leader
// applies the merge patch to its current policy.
func (c clusterAdmin) PatchPolicy(tube string, patch []byte) (jobs.Policy, error) {
	n := c.ls.node.Load()
	if n == nil {
		return jobs.Policy{}, cluster.ErrNotLeader
	}
	return n.ForwardPatchPolicy(tube, patch)
}

// startClusterAdmin starts --admin for a cluster member (nil when off).
func startClusterAdmin(f adminFlags, ls *leaderServer) (*adminServer, error) {
	if f.addr == "" {
		return nil, nil
	}
	a := &adminServer{}
	s, err := admin.Start(admin.Options{
		Addr: f.addr, Cluster: clusterAdmin{ls}, Version: engine.Version, ProtocolVersion: engine.ProtocolVersion, MetricsMaxTubes: f.maxTubes,
		Logger: f.root, Tokens: f.tokens, PolicyFile: ls.o.policies.name(),
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

var _ admin.PolicyForwarder = clusterAdmin{}
