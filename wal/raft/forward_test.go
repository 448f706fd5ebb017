package raft

import (
	"slices"
	"testing"
	"time"

	hraft "github.com/hashicorp/raft"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// servers lists the ids in n's raft configuration.
func servers(n *Node) []string {
	var ids []string
	f := n.Raft().GetConfiguration()
	if f.Error() != nil {
		return nil
	}
	for _, s := range f.Configuration().Servers {
		ids = append(ids, string(s.ID))
	}
	slices.Sort(ids)
	return ids
}

// TestForwardMembership: a membership change asked of a follower is
// carried out by the leader (forwarded over its raft port, inside node
// TLS), and the follower's own configuration shows it when the call
// returns; the added node catches up. A peer without the cluster's
// certificate cannot forward a change. AddVoter itself stays leader-only.
func TestForwardMembership(t *testing.T) {
	ca := enginetest.NewCA(t, "cluster")
	nodes, _ := openTLSCluster(t, ca, 3)
	var li int
	enginetest.Eventually(t, "a leader", func() bool {
		for i, n := range nodes {
			if n.Raft().State() == hraft.Leader {
				li = i
				return true
			}
		}
		return false
	})
	f1, f2 := nodes[(li+1)%3], nodes[(li+2)%3]
	enginetest.Eventually(t, "the followers to know the leader", func() bool {
		a, _ := f1.Leader()
		b, _ := f2.Leader()
		return a != "" && b != ""
	})
	assert.ErrorIs(t, f1.AddVoter("x", "127.0.0.1:1"), cluster.ErrNotLeader, "AddVoter is the leader's")

	extra := Peer{ID: "n3", Addr: freeTCPAddr(t)}
	n3 := openTLSNode(t, ca, extra, nil)
	retryNotLeader(t, func() error { return f1.ForwardAddVoter(extra.ID, extra.Addr) })
	assert.Contains(t, servers(f1), "n3", "the follower that forwarded sees the change")
	assert.Contains(t, servers(nodes[li]), "n3")
	enginetest.Eventually(t, "n3 to catch up", func() bool { return n3.Stats().AppliedIndex >= nodes[li].Stats().CommitIndex })

	// A peer whose certificate another CA signed is refused.
	other := enginetest.NewCA(t, "other")
	sl, err := newStreamLayer(freeTCPAddr(t), nodeTLS(t, other, "rogue"), testLogger())
	require.NoError(t, err)
	defer sl.Close()
	rogue := &Node{stream: sl, log: testLogger()}
	_, leaderAddr := f2.Leader()
	_, err = rogue.sendChange(leaderAddr, forwardReq{Op: "remove-server", ID: "n3"})
	assert.Error(t, err)
	assert.Contains(t, servers(nodes[li]), "n3", "the rogue's change was not carried out")

	retryNotLeader(t, func() error { return f2.ForwardRemoveServer("n3") })
	assert.NotContains(t, servers(f2), "n3")
	assert.NotContains(t, servers(nodes[li]), "n3")
}

// retryNotLeader calls change until it succeeds, retrying while it fails
// with ErrNotLeader (a leader change under way on a loaded machine, which
// the Forward* contract says to retry); any other error fails the test.
func retryNotLeader(t *testing.T, change func() error) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := change()
		if err == nil {
			return
		}
		require.ErrorIs(t, err, cluster.ErrNotLeader)
		require.True(t, time.Now().Before(deadline), "still no leader to take the change: %v", err)
		time.Sleep(50 * time.Millisecond)
	}
}
