package cluster

import "errors"

// ErrNotLeader: a node that does not lead was asked for what only the
// leader may do (a membership change, a queue call); ask the leader, which
// Status.Leader names. Errors that wrap it say why.
var ErrNotLeader = errors.New("not the leader")

// Status is a cluster member's view of its raft cluster: what stats-cluster
// reports and GET /v1/cluster returns. The JSON names are the admin API's;
// the protocol's YAML document names the same facts its own way (Servers
// as "peers", each with "voter: true|false"), see package engine.
type Status struct {
	ID string `json:"id"`
	// State is leader, follower, candidate or shutdown; a member whose raft
	// node is not open yet says starting, a single node standalone.
	State string `json:"state"`
	// Leader is the leader's id, empty when none is known; LeaderAddr its
	// raft address.
	Leader            string `json:"leader"`
	LeaderAddr        string `json:"leader_addr"`
	Term              uint64 `json:"term"`
	CommitIndex       uint64 `json:"commit_index"`
	AppliedIndex      uint64 `json:"applied_index"`
	LastSnapshotIndex uint64 `json:"last_snapshot_index"`
	// EntriesProposed and RecordsProposed count what this node handed to
	// raft while leading: RecordsProposed/EntriesProposed is how many
	// changes one raft round carried (group commit). stats-cluster reports
	// them; the admin API does not.
	EntriesProposed uint64 `json:"-"`
	RecordsProposed uint64 `json:"-"`
	// Servers is the current raft configuration.
	Servers []Server `json:"servers"`
}

// Server is one server of the raft configuration.
type Server struct {
	ID       string   `json:"id"`
	Addr     string   `json:"addr"` // its raft address
	Suffrage Suffrage `json:"suffrage"`
}

// Suffrage says whether a server votes.
type Suffrage string

// The suffrages. raft's staging servers count as nonvoters.
const (
	Voter    Suffrage = "voter"
	Nonvoter Suffrage = "nonvoter"
)

// Voter reports whether the server votes.
func (s Server) Voter() bool { return s.Suffrage == Voter }
