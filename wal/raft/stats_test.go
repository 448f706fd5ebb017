package raft

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStatsYAML pins the stats-cluster document.
func TestStatsYAML(t *testing.T) {
	s := ClusterStats{ID: "n1", State: "leader", Leader: "n1", LeaderAddr: "10.0.0.1:11310", Term: 3,
		CommitIndex: 40, AppliedIndex: 39, LastSnapshotIndex: 16, EntriesProposed: 5, RecordsProposed: 120,
		Peers: []PeerStats{{ID: "n1", Addr: "10.0.0.1:11310", Voter: true}, {ID: "n2", Addr: "10.0.0.2:11310"}}}
	assert.Equal(t, `---
id: "n1"
state: "leader"
leader: "n1"
leader-addr: "10.0.0.1:11310"
term: 3
commit-index: 40
applied-index: 39
last-snapshot-index: 16
entries-proposed: 5
records-proposed: 120
peers:
- id: "n1"
  addr: "10.0.0.1:11310"
  voter: true
- id: "n2"
  addr: "10.0.0.2:11310"
  voter: false
`, string(s.AppendYAML(nil)))
	assert.Contains(t, string(StandaloneYAML(nil)), "\nstate: \"standalone\"\n")
}
