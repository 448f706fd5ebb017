package raft

import (
	"strconv"
	"strings"

	hraft "github.com/hashicorp/raft"

	"github.com/stalkd/stalkd/jobs/cluster"
)

// Stats returns the node's view of the cluster (what stats-cluster and the
// admin API report). It reads raft's counters
// and configuration; it never waits for the leader.
func (n *Node) Stats() cluster.Status {
	r := n.raft
	leaderAddr, leaderID := r.LeaderWithID()
	st := cluster.Status{
		ID:           n.cfg.ID,
		State:        strings.ToLower(r.State().String()),
		Leader:       string(leaderID),
		LeaderAddr:   string(leaderAddr),
		Term:         r.CurrentTerm(),
		CommitIndex:  r.CommitIndex(),
		AppliedIndex: r.AppliedIndex(),

		EntriesProposed: n.proposed.entries.Load(),
		RecordsProposed: n.proposed.records.Load(),
	}
	st.LastSnapshotIndex, _ = strconv.ParseUint(r.Stats()["last_snapshot_index"], 10, 64)
	if f := r.GetConfiguration(); f.Error() == nil {
		for _, s := range f.Configuration().Servers {
			sv := cluster.Server{ID: string(s.ID), Addr: string(s.Address), Suffrage: cluster.Nonvoter}
			if s.Suffrage == hraft.Voter {
				sv.Suffrage = cluster.Voter
			}
			st.Servers = append(st.Servers, sv)
		}
	}
	return st
}
