package engine

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// statsCluster sends stats-cluster to addr and returns the document.
func statsCluster(t *testing.T, addr string) string {
	r := enginetest.Dial(t, addr).Ask("stats-cluster\r\n")
	require.True(t, strings.HasPrefix(r.Head, "OK "), r.Head)
	return string(r.Body)
}

// TestStatsClusterStandalone: a single node answers state standalone.
func TestStatsClusterStandalone(t *testing.T) {
	srv := startServer(t)
	assert.Equal(t, `---
id: ""
state: standalone
leader: ""
leader-addr: ""
term: 0
commit-index: 0
applied-index: 0
last-snapshot-index: 0
entries-proposed: 0
records-proposed: 0
stalkd-version: `+Version+`
peers: []
`, statsCluster(t, srv.Addr().String()))
}

// TestStatsClusterMember: a cluster member's document, as the hook gives it.
func TestStatsClusterMember(t *testing.T) {
	var calls atomic.Int32
	srv := startServer(t, func(c *Config) {
		c.ClusterStats = func() cluster.Status {
			calls.Add(1)
			return cluster.Status{ID: "n1", State: "leader", Leader: "n1", LeaderAddr: "10.0.0.1:11310", Term: 3,
				CommitIndex: 40, AppliedIndex: 39, LastSnapshotIndex: 16, EntriesProposed: 5, RecordsProposed: 120,
				Servers: []cluster.Server{{ID: "n1", Addr: "10.0.0.1:11310", Suffrage: cluster.Voter}, {ID: "n2", Addr: "10.0.0.2:11310", Suffrage: cluster.Nonvoter}}}
		}
	})
	assert.Equal(t, `---
id: n1
state: leader
leader: n1
leader-addr: 10.0.0.1:11310
term: 3
commit-index: 40
applied-index: 39
last-snapshot-index: 16
entries-proposed: 5
records-proposed: 120
stalkd-version: `+Version+`
peers:
- id: n1
  addr: 10.0.0.1:11310
  voter: true
- id: n2
  addr: 10.0.0.2:11310
  voter: false
`, statsCluster(t, srv.Addr().String()))
	assert.Equal(t, int32(1), calls.Load(), "the hook is asked once per command")
}
