package raft

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
)

// TestForwardRedriveAndMove: a redrive and a move asked of a follower are
// made by the leader (over its raft port, inside node TLS) and committed
// when the call returns, with the leader's counts; the leader's refusals
// come back as the queue's sentinels.
func TestForwardRedriveAndMove(t *testing.T) {
	if testing.Short() {
		t.Skip("a TLS cluster")
	}
	ca := enginetest.NewCA(t, "cluster")
	nodes, _ := openTLSCluster(t, ca, 3)
	leading := func() (int, *jobs.Queue) { return leadingNode(t, nodes) }
	li, q := leading()
	ids := deadLetterOn(t, q, 2)
	f := nodes[(li+1)%3]
	enginetest.Eventually(t, "the follower to know the leader", func() bool {
		id, _ := f.Leader()
		return id != ""
	})

	var res jobs.RedriveResult
	require.NoError(t, untilLeaderTakes(t, func() (err error) {
		res, err = f.ForwardRedrive("dead", jobs.RedriveRequest{Max: 1})
		return err
	}))
	assert.Equal(t, 1, res.Moved)
	assert.Equal(t, map[string]int{"work": 1}, res.ByTube)
	_, q = leading()
	js, err := q.StatsJob(ids[0])
	require.NoError(t, err)
	assert.Equal(t, "work", js.Tube, "moved on the leader when the call returns")

	var moved bool
	require.NoError(t, untilLeaderTakes(t, func() (err error) { moved, err = f.ForwardMoveJob(ids[1], "parking"); return err }))
	assert.True(t, moved)
	js, err = q.StatsJob(ids[1])
	require.NoError(t, err)
	assert.Equal(t, "parking", js.Tube)
	require.NoError(t, untilLeaderTakes(t, func() (err error) { moved, err = f.ForwardMoveJob(ids[1], "parking"); return err }))
	assert.False(t, moved, "already there")

	// Refusals keep their meaning.
	s := q.NewSession(nil)
	defer s.Close()
	_, err = s.Watch([]byte("work"))
	require.NoError(t, err)
	d, _, err := s.ReserveJob(ids[0])
	require.NoError(t, err)
	require.NoError(t, waitCommitted(t, q, s.LastSeq()))
	err = untilLeaderTakes(t, func() error { _, err := f.ForwardMoveJob(d.ID, "x"); return err })
	assert.ErrorIs(t, err, jobs.ErrReservedJob)
	err = untilLeaderTakes(t, func() error { _, err := f.ForwardMoveJob(1<<40, "x"); return err })
	assert.ErrorIs(t, err, jobs.ErrNotFound)
	err = untilLeaderTakes(t, func() error { _, err := f.ForwardRedrive("no-such-tube", jobs.RedriveRequest{}); return err })
	assert.ErrorIs(t, err, jobs.ErrNotFound)
	err = untilLeaderTakes(t, func() error {
		_, err := f.ForwardRedrive("parking", jobs.RedriveRequest{To: "parking"})
		return err
	})
	assert.ErrorIs(t, err, jobs.ErrSameTube)
}
