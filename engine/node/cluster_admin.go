package node

import (
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
func (c clusterAdmin) Queue() *jobs.Queue { return c.ls.queue() }

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

// Redrive is a follower's POST /v1/tubes/{tube}/redrive
// (admin.MoveForwarder): the leader moves the jobs.
func (c clusterAdmin) Redrive(tube string, r jobs.RedriveRequest) (jobs.RedriveResult, error) {
	n := c.ls.node.Load()
	if n == nil {
		return jobs.RedriveResult{}, cluster.ErrNotLeader
	}
	return n.ForwardRedrive(tube, r)
}

// MoveJob is a follower's POST /v1/jobs/{id}/move.
func (c clusterAdmin) MoveJob(id uint64, to string) (bool, error) {
	n := c.ls.node.Load()
	if n == nil {
		return false, cluster.ErrNotLeader
	}
	return n.ForwardMoveJob(id, to)
}

// startClusterAdmin starts the admin listener of a cluster member (nil
// when off).
func (n *Node) startClusterAdmin(ls *leaderServer) (*adminServer, error) {
	if n.cfg.Admin.Addr == "" {
		return nil, nil
	}
	a := &adminServer{}
	opts := n.adminOptions(a, nil)
	opts.Cluster = clusterAdmin{ls}
	return n.listenAdmin(a, opts)
}

var (
	_ admin.PolicyForwarder = clusterAdmin{}
	_ admin.MoveForwarder   = clusterAdmin{}
)
