package main

import (
	"github.com/stalkd/stalkd/engine/admin"
	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

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

var _ admin.MoveForwarder = clusterAdmin{}
