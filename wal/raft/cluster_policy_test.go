package raft

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
)

// TestClusterPolicyFailover: a policy set on the leader outlives it, and a
// schedule puts each of its times at most once across the failover (a time
// missed while no node led is put once, for the latest time due).
func TestClusterPolicyFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of real time")
	}
	c := newCluster(t, 3)
	li, q := c.leader()
	p := jobs.Policy{MaxReserves: 2, Schedule: []jobs.Schedule{{Cron: "@every 1s", Body: "tick"}}}
	seq, err := q.SetPolicySeq("sched", p)
	require.NoError(t, err)
	require.NoError(t, waitCommitted(t, q, seq))
	enginetest.Eventually(t, "two scheduled puts", func() bool { return len(scheduled(c.image(li))) >= 2 })

	c.kill(li)
	nli, nq := c.leader()
	require.NotEqual(t, li, nli)
	got, ok := nq.Policy("sched")
	require.True(t, ok, "the new leader has the policy")
	assert.Equal(t, p, got)
	before := len(scheduled(c.image(nli)))
	enginetest.Eventually(t, "two more scheduled puts", func() bool { return len(scheduled(c.image(nli))) >= before+2 })

	times := scheduled(c.image(nli))
	seen := map[int64]bool{}
	for _, at := range times {
		assert.False(t, seen[at], "time %d put twice", at)
		seen[at] = true
	}
	assert.GreaterOrEqual(t, len(times), 4)
	// The new leader continued the schedule's grid (its progress was
	// replicated), rather than starting afresh at its election.
	for _, at := range times {
		assert.Zero(t, (at-times[0])%int64(time.Second), "time %d is off the grid of %d", at, times[0])
	}
}

// scheduled returns the fire times of the scheduled puts in img.
func scheduled(img map[uint64]jobs.Record) []int64 {
	var out []int64
	for _, r := range img {
		if r.Sched != 0 {
			out = append(out, r.SchedAt)
		}
	}
	return out
}
