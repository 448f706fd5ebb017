package raft

import (
	"strconv"
	"strings"

	hraft "github.com/hashicorp/raft"
)

// ClusterStats is what stats-cluster and the admin API report.
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

// AppendYAML appends the stats-cluster document (the body after
// "OK <bytes>\r\n") to dst, in the style of the stats commands.
func (s *ClusterStats) AppendYAML(dst []byte) []byte {
	dst = append(dst, "---\n"...)
	dst = appendKV(dst, "id", strconv.Quote(s.ID))
	dst = appendKV(dst, "state", strconv.Quote(s.State))
	dst = appendKV(dst, "leader", strconv.Quote(s.Leader))
	dst = appendKV(dst, "leader-addr", strconv.Quote(s.LeaderAddr))
	dst = appendKV(dst, "term", strconv.FormatUint(s.Term, 10))
	dst = appendKV(dst, "commit-index", strconv.FormatUint(s.CommitIndex, 10))
	dst = appendKV(dst, "applied-index", strconv.FormatUint(s.AppliedIndex, 10))
	dst = appendKV(dst, "last-snapshot-index", strconv.FormatUint(s.LastSnapshotIndex, 10))
	dst = appendKV(dst, "entries-proposed", strconv.FormatUint(s.EntriesProposed, 10))
	dst = appendKV(dst, "records-proposed", strconv.FormatUint(s.RecordsProposed, 10))
	dst = append(dst, "peers:\n"...)
	for _, p := range s.Peers {
		dst = append(dst, "- id: "...)
		dst = strconv.AppendQuote(dst, p.ID)
		dst = append(dst, "\n  addr: "...)
		dst = strconv.AppendQuote(dst, p.Addr)
		dst = append(dst, "\n  voter: "...)
		dst = strconv.AppendBool(dst, p.Voter)
		dst = append(dst, '\n')
	}
	return dst
}

// StandaloneYAML is the stats-cluster document of a server without raft.
func StandaloneYAML(dst []byte) []byte {
	return append(dst, "---\nid: \"\"\nstate: \"standalone\"\nleader: \"\"\nterm: 0\ncommit-index: 0\napplied-index: 0\nlast-snapshot-index: 0\nentries-proposed: 0\nrecords-proposed: 0\npeers: []\n"...)
}

func appendKV(dst []byte, k, v string) []byte {
	dst = append(dst, k...)
	dst = append(dst, ": "...)
	dst = append(dst, v...)
	return append(dst, '\n')
}
