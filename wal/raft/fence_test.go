package raft

import (
	"testing"
	"time"

	hraft "github.com/hashicorp/raft"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
)

// TestFenceAloneVerifiesLeadership: a fence with nothing pending is a
// VerifyLeader round, not a log entry; it commits when the round does.
func TestFenceAloneVerifiesLeadership(t *testing.T) {
	r := newFakeRaft(t, false)
	counts := new(proposed)
	j := newJournal(r, 1<<20, 1, time.Second, counts)
	defer closeJournal(r, j)
	f := j.Fence()
	<-r.applied
	c, err := j.Committed()
	require.NoError(t, err)
	assert.Less(t, c, f, "not committed before the round")
	r.future(0).done <- nil
	enginetest.Eventually(t, "the fence commits", func() bool { c, _ := j.Committed(); return c >= f })
	assert.Nil(t, r.entries[0], "a round, not an entry")
	assert.Zero(t, counts.entries.Load(), "no entry proposed")
}

// TestFenceRidesWithRecords: a fence behind records commits with their
// entry, which carries the records only.
func TestFenceRidesWithRecords(t *testing.T) {
	r := newFakeRaft(t, true)
	j := newJournal(r, 1<<20, 1, time.Second, nil)
	defer closeJournal(r, j)
	s1, err := j.Append(putRec(1))
	require.NoError(t, err)
	<-r.entered // the batcher is handing record 1 to raft
	s2, err := j.Append(putRec(2))
	require.NoError(t, err)
	f := j.Fence()
	r.gate <- struct{}{}
	<-r.applied
	r.future(0).done <- nil
	<-r.entered
	r.gate <- struct{}{}
	<-r.applied
	require.Len(t, r.entries[1], 1, "the second entry holds record 2, not the fence")
	assert.Equal(t, uint64(2), r.entries[1][0].ID)
	c, _ := j.Committed()
	assert.Equal(t, s1, c)
	r.future(1).done <- nil
	enginetest.Eventually(t, "record 2 and the fence commit", func() bool { c, _ := j.Committed(); return c >= f })
	assert.Greater(t, f, s2)
}

// TestFenceFailsWhenNotLeader: a node that cannot prove it leads fails its
// fence (and its journal): the read is never answered as if current.
func TestFenceFailsWhenNotLeader(t *testing.T) {
	r := newFakeRaft(t, false)
	j := newJournal(r, 1<<20, 1, time.Second, nil)
	defer closeJournal(r, j)
	f := j.Fence()
	<-r.applied
	r.future(0).done <- hraft.ErrNotLeader
	enginetest.Eventually(t, "the journal fails", func() bool { _, err := j.Committed(); return err != nil })
	c, err := j.Committed()
	assert.Less(t, c, f)
	assert.ErrorIs(t, err, ErrLeadershipLost)
	assert.ErrorIs(t, err, jobs.ErrJournal)
	assert.Equal(t, uint64(1<<64-1), j.Fence(), "a dead journal's fence never commits")
}
