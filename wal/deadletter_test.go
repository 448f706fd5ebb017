package wal

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// deadLetters fills tube "dead" from tube "work" (max_reserves 1): jobs
// with the given priorities, bodies "job-<pri>", each reserved once and
// released, but the last one, whose TTR runs out. It returns their ids.
func (s *server) deadLetters(pris ...uint32) []uint64 {
	s.t.Helper()
	seq, err := s.q.SetPolicySeq("work", jobs.Policy{MaxReserves: 1, DeadLetter: "dead"})
	require.NoError(s.t, err)
	s.wait(seq)
	w := s.session("work")
	defer w.Close()
	var ids []uint64
	for i, pri := range pris {
		id := s.put(w, pri, 0, fmt.Sprintf("job-%d", pri))
		ids = append(ids, id)
		s.reserve(w, id)
		if i == len(pris)-1 {
			s.clock.Advance(61 * time.Second) // past the TTR
			s.q.Tick()
			s.put(w, 0, 0, "sync") // committed after the timeout's move
			s.reserve(w, ids[len(ids)-1]+1)
			seq, err := w.Delete(ids[len(ids)-1] + 1)
			require.NoError(s.t, err)
			s.wait(seq)
			continue
		}
		seq, err := w.Release(id, pri, 0)
		require.NoError(s.t, err)
		s.wait(seq)
	}
	return ids
}

func (s *server) deadLetter(id uint64) (jobs.DeadLetter, bool) {
	s.t.Helper()
	dl, ok, err := s.q.JobDeadLetter(id)
	require.NoError(s.t, err)
	return dl, ok
}

// TestDeadLetterSurvivesRestartAndCompaction: what a dead-lettered job
// remembers (origin, reason, time) comes back after a crash, and after
// compaction has dropped the segments its move was written in.
func TestDeadLetterSurvivesRestartAndCompaction(t *testing.T) {
	opts := testOptions(t)
	opts.NoSync = true
	opts.Logger = opts.Logger.Level(1)
	s := newServer(t, opts)
	ids := s.deadLetters(7, 9)
	want := map[uint64]jobs.DeadLetter{
		ids[0]: {Origin: "work", Reason: jobs.DeadReleased, At: t0},
		ids[1]: {Origin: "work", Reason: jobs.DeadTimedOut, At: t0 + int64(61*time.Second)},
	}
	check := func(c *server, when string) {
		t.Helper()
		for id, dl := range want {
			got, ok := c.deadLetter(id)
			require.True(t, ok, "%s: job %d", when, id)
			assert.Equal(t, dl, got, "%s: job %d", when, id)
			assert.Equal(t, "dead", c.stats(id).Tube)
		}
	}
	check(s.crashCopy(), "after a crash")

	s.churnUntilCompacted("churn", 2)
	s.restart()
	check(s, "after compaction and a restart")
}

// TestRedriveSurvivesRestart: a redrive keeps ids, bodies and priorities
// through a crash, with the reserve count reset and the dead letter gone;
// a moved job keeps its state (buried) through one too.
func TestRedriveSurvivesRestart(t *testing.T) {
	s := newServer(t, testOptions(t))
	ids := s.deadLetters(30, 10, 20)
	res, err := s.q.Redrive("dead", jobs.RedriveRequest{})
	require.NoError(t, err)
	require.Equal(t, 3, res.Moved)
	s.wait(res.Seq)

	// And one job moved by hand, buried.
	b := s.session("dead")
	id := s.put(b, 5, 0, "parked")
	s.reserve(b, id)
	seq, err := b.Bury(id, 5)
	require.NoError(t, err)
	s.wait(seq)
	seq, moved, err := s.q.MoveJob(id, "parking")
	require.NoError(t, err)
	require.True(t, moved)
	s.wait(seq)

	c := s.crashCopy()
	for _, id := range ids {
		js := c.stats(id)
		assert.Equal(t, "work", js.Tube, "job %d", id)
		assert.Equal(t, jobs.Ready, js.State)
		assert.Zero(t, js.Reserves)
		_, ok := c.deadLetter(id)
		assert.False(t, ok)
	}
	w := c.session("work")
	for _, want := range []struct {
		id   uint64
		pri  uint32
		body string
	}{{ids[1], 10, "job-10"}, {ids[2], 20, "job-20"}, {ids[0], 30, "job-30"}} {
		j, err := w.Reserve(0)
		require.NoError(t, err)
		assert.Equal(t, want.id, j.ID, "same id, in priority order")
		assert.Equal(t, want.body, string(j.Body()))
		assert.Equal(t, want.pri, c.stats(j.ID).Pri)
	}
	js := c.stats(id)
	assert.Equal(t, "parking", js.Tube)
	assert.Equal(t, jobs.Buried, js.State)
	assert.Equal(t, uint32(5), js.Pri)
}
