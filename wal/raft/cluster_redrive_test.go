package raft

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// deadLetterOn fills tube "dead" from "work" (max_reserves 1) on q: n jobs
// with priorities 10, 20, ..., each reserved once and released. It returns
// their ids once everything is committed.
func deadLetterOn(t *testing.T, q *jobs.Queue, n int) []uint64 {
	t.Helper()
	seq, err := q.SetPolicySeq("work", jobs.Policy{MaxReserves: 1, DeadLetter: "dead"})
	require.NoError(t, err)
	require.NoError(t, waitCommitted(t, q, seq))
	s := q.NewSession(nil)
	defer s.Close()
	require.NoError(t, s.Use([]byte("work")))
	_, err = s.Watch([]byte("work"))
	require.NoError(t, err)
	var ids []uint64
	for i := range n {
		pri := uint32(10 * (i + 1))
		id, seq, err := s.Put(jobs.PutRequest{Pri: pri, TTR: time.Minute, Owned: fmt.Appendf(nil, "job-%d", pri)})
		require.NoError(t, err)
		require.NoError(t, waitCommitted(t, q, seq))
		d, _, err := s.ReserveJob(id)
		require.NoError(t, err)
		require.NoError(t, waitCommitted(t, q, s.LastSeq()))
		require.Equal(t, id, d.ID)
		seq, err = s.Release(id, pri, 0)
		require.NoError(t, err)
		require.NoError(t, waitCommitted(t, q, seq))
		ids = append(ids, id)
	}
	return ids
}

// TestClusterRedriveFailover: dead letters keep their origin through a
// leader failover, and a redrive committed on a leader keeps ids, bodies
// and priorities (reserve count reset, dead letter gone) through the next
// one; the job it did not move stays a dead letter.
func TestClusterRedriveFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("two failovers")
	}
	c := newCluster(t, 3)
	li, q := c.leader()
	ids := deadLetterOn(t, q, 3)

	c.kill(li)
	l2, q2 := c.leader()
	require.NotEqual(t, li, l2)
	for _, id := range ids {
		dl, ok, err := q2.JobDeadLetter(id)
		require.NoError(t, err)
		require.True(t, ok, "job %d: the dead letter survived the failover", id)
		assert.Equal(t, "work", dl.Origin)
		assert.Equal(t, jobs.DeadReleased, dl.Reason)
	}
	res, err := q2.Redrive("dead", jobs.RedriveRequest{Max: 2})
	require.NoError(t, err)
	require.Equal(t, 2, res.Moved)
	require.NoError(t, waitCommitted(t, q2, res.Seq))

	c.start(li, nil) // a majority for the next election
	c.kill(l2)
	l3, q3 := c.leader()
	require.NotEqual(t, l2, l3)
	var inWork, inDead int
	for i, id := range ids {
		js, err := q3.StatsJob(id)
		require.NoError(t, err)
		_, dead, err := q3.JobDeadLetter(id)
		require.NoError(t, err)
		switch js.Tube {
		case "work":
			inWork++
			assert.False(t, dead)
			assert.Zero(t, js.Reserves)
		case "dead":
			inDead++
			assert.True(t, dead)
		}
		assert.Equal(t, uint32(10*(i+1)), js.Pri)
		d, err := q3.Peek(id)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("job-%d", 10*(i+1)), string(d.Body()))
	}
	assert.Equal(t, 2, inWork)
	assert.Equal(t, 1, inDead)

	// The redriven jobs are reserved again from their origin, same ids.
	s := q3.NewSession(nil)
	defer s.Close()
	_, err = s.Watch([]byte("work"))
	require.NoError(t, err)
	_, err = s.Ignore([]byte("default"))
	require.NoError(t, err)
	d, err := s.Reserve(0)
	require.NoError(t, err)
	assert.Equal(t, ids[0], d.ID, "the lowest priority value first")
}
