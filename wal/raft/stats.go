package raft

import (
	"strconv"
	"strings"

	hraft "github.com/hashicorp/raft"
)

// ClusterStats is the node's view of the cluster: what stats-cluster and
// the admin API report (package engine formats it).
type ClusterStats struct {
	ID                string
	State             string // leader, follower, candidate or shutdown
	Leader            string // the leader's id; empty when none is known
	LeaderAddr        string
	Term              uint64
	CommitIndex       uint64
	AppliedIndex      uint64
	LastSnapshotIndex uint64
	// EntriesProposed and RecordsProposed count what this node handed to
	// raft while leading: RecordsProposed/EntriesProposed is how many
	// changes one raft round carried (group commit).
	EntriesProposed, RecordsProposed uint64
	Peers                            []PeerStats
}

// PeerStats is one server of the current raft configuration.
type PeerStats struct {
	ID, Addr string
	Voter    bool
}

// Stats returns the node's view of the cluster. It reads raft's counters
// and configuration; it never waits for the leader.
func (n *Node) Stats() ClusterStats {
	r := n.raft
	leaderAddr, leaderID := r.LeaderWithID()
	st := ClusterStats{
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
			st.Peers = append(st.Peers, PeerStats{ID: string(s.ID), Addr: string(s.Address), Voter: s.Suffrage == hraft.Voter})
		}
	}
	return st
}
