package engine

// ClusterInfo is what stats-cluster reports: a cluster member's view of
// its raft cluster (the program fills it from package wal/raft; the engine
// only formats it). A single node reports State "standalone".
type ClusterInfo struct {
	ID    string
	State string // leader, follower, candidate, shutdown, or standalone
	// Leader is the leader's id, empty when none is known; LeaderAddr its
	// raft address.
	Leader, LeaderAddr                                 string
	Term, CommitIndex, AppliedIndex, LastSnapshotIndex uint64
	// EntriesProposed and RecordsProposed: raft entries this node proposed
	// while leading, and the changes they carried (the group-commit factor).
	EntriesProposed, RecordsProposed uint64
	Peers                            []ClusterPeer
}

// ClusterPeer is one server of the cluster's configuration.
type ClusterPeer struct {
	ID, Addr string
	Voter    bool
}

// appendClusterStats appends the stats-cluster YAML document to dst.
func appendClusterStats(dst []byte, c *ClusterInfo) []byte {
	dst = append(dst, yamlHeader...)
	dst = kvYAML(dst, "id", c.ID)
	dst = kvYAML(dst, "state", c.State)
	dst = kvYAML(dst, "leader", c.Leader)
	dst = kvYAML(dst, "leader-addr", c.LeaderAddr)
	dst = kvUint(dst, "term", c.Term)
	dst = kvUint(dst, "commit-index", c.CommitIndex)
	dst = kvUint(dst, "applied-index", c.AppliedIndex)
	dst = kvUint(dst, "last-snapshot-index", c.LastSnapshotIndex)
	dst = kvUint(dst, "entries-proposed", c.EntriesProposed)
	dst = kvUint(dst, "records-proposed", c.RecordsProposed)
	if len(c.Peers) == 0 {
		return append(dst, "peers: []\n"...)
	}
	dst = append(dst, "peers:\n"...)
	for _, p := range c.Peers {
		dst = kvYAML(append(dst, "- "...), "id", p.ID)
		dst = kvYAML(append(dst, "  "...), "addr", p.Addr)
		dst = kvBool(append(dst, "  "...), "voter", p.Voter)
	}
	return dst
}
