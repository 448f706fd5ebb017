package wal

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// crashCopy returns a copy of the running server's directory, as a crash
// would leave it once everything committed was written: the original Log
// is not closed.
func (s *server) crashCopy() *server {
	s.t.Helper()
	dir := testDir(s.t)
	require.NoError(s.t, os.RemoveAll(dir))
	require.NoError(s.t, os.CopyFS(dir, os.DirFS(s.dir)))
	// the lock is an flock on the original's open file: the copy is free
	c := &server{t: s.t, dir: dir, opts: s.opts, clock: jobs.NewManualClock(s.clock.Now())}
	c.start()
	s.t.Cleanup(func() { c.l.Close() })
	return c
}

// drain reserves and deletes every ready job of tube and returns their bodies.
func (s *server) drain(tube string) []string {
	s.t.Helper()
	ss := s.session(tube)
	defer ss.Close()
	var got []string
	for {
		j, err := ss.Reserve(0)
		if err == jobs.ErrTimedOut {
			return got
		}
		require.NoError(s.t, err)
		got = append(got, string(j.Body()))
		seq, err := ss.Delete(j.ID)
		require.NoError(s.t, err)
		s.wait(seq)
	}
}

// TestPolicyCrashRestart: a policy, each job's reserve count and the
// schedules' progress survive a crash; a time missed while down is put
// once at start, and not again after a second crash right after.
func TestPolicyCrashRestart(t *testing.T) {
	s := newServer(t, Options{})
	p := jobs.Policy{MaxReserves: 2, DeadLetter: "dead", MaxReady: 5, ReserveRate: 10,
		Schedule: []jobs.Schedule{{Cron: "@every 1m", Body: "tick", Priority: 5, TTR: 5}}}
	seq, err := s.q.SetPolicySeq("work", p)
	require.NoError(t, err)
	s.wait(seq)

	w := s.session("work")
	id := s.put(w, 1, 0, "job")
	s.reserve(w, id)
	seq, err = w.Release(id, 1, 0)
	require.NoError(t, err)
	s.wait(seq)

	s.clock.Advance(time.Minute)
	s.q.Tick()               // the schedule puts "tick"
	s.put(w, 2, 0, "marker") // waiting for it waits for the tick's put too

	c := s.crashCopy()
	got, ok := c.q.Policy("work")
	require.True(t, ok)
	require.Equal(t, p, got)
	require.Equal(t, uint32(1), c.stats(id).Reserves, "the reserve count survives")

	// One more reserve and release: the job has used its two reserves.
	cw := c.session("work")
	c.reserve(cw, id)
	seq, err = cw.Release(id, 1, 0)
	require.NoError(t, err)
	c.wait(seq)
	require.Equal(t, "dead", c.stats(id).Tube)
	require.Equal(t, []string{"marker", "tick"}, c.drain("work"))

	// Down for 2.5 minutes: two times missed, put once at start.
	c2 := c.crashCopy()
	c2.clock.Advance(150 * time.Second)
	c2.q.Tick()
	c2.put(c2.session("other"), 1, 0, "sync")
	require.Equal(t, []string{"tick"}, c2.drain("work"))
	require.Equal(t, "dead", c2.stats(id).Tube, "the dead-lettered job stays dead-lettered")

	c3 := c2.crashCopy()
	c3.q.Tick()
	require.Empty(t, c3.drain("work"), "the missed time is not put again")
	c3.clock.Advance(29 * time.Second) // 30 s after the last time due
	c3.q.Tick()
	require.Empty(t, c3.drain("work"))
	c3.clock.Advance(time.Second)
	c3.q.Tick()
	c3.put(c3.session("other"), 1, 0, "sync")
	require.Equal(t, []string{"tick"}, c3.drain("work"))

	removed, seq, err := c3.q.RemovePolicySeq("work")
	require.NoError(t, err)
	require.True(t, removed)
	c3.wait(seq)
	c4 := c3.crashCopy()
	_, ok = c4.q.Policy("work")
	require.False(t, ok, "a removal survives too")
}

// churnUntilCompacted puts and deletes jobs in tube until the log has
// completed n compaction rounds, and waits until all of it is committed.
func (s *server) churnUntilCompacted(tube string, n uint64) {
	s.t.Helper()
	ss := s.session(tube)
	defer ss.Close()
	body := make([]byte, 300)
	var last uint64
	for i := 0; s.l.Metrics().Compactions < n; i++ {
		require.Less(s.t, i, 200_000, "no compaction happened")
		id, _, err := ss.Put(jobs.PutRequest{TTR: time.Minute, Body: body})
		require.NoError(s.t, err)
		last, err = ss.Delete(id)
		require.NoError(s.t, err)
		if i%100 == 99 {
			s.wait(last)
		}
	}
	s.wait(last)
}

// TestPolicySurvivesCompaction: compaction drops the segments that held the
// policy records and the scheduled puts, yet a restart finds the policies
// and the schedules' progress (the queue wrote them again first).
func TestPolicySurvivesCompaction(t *testing.T) {
	t.Run("per tube", func(t *testing.T) { testPolicySurvivesCompaction(t, false) })
	t.Run("set", func(t *testing.T) { testPolicySurvivesCompaction(t, true) })
}

// testPolicySurvivesCompaction: policies written one tube at a time, or
// as one policy set record, survive the compaction of their segment.
func testPolicySurvivesCompaction(t *testing.T, asSet bool) {
	opts := testOptions(t)
	opts.NoSync = true
	opts.Logger = opts.Logger.Level(1)
	s := newServer(t, opts)
	pa := jobs.Policy{MaxReady: 1000, Schedule: []jobs.Schedule{{Cron: "@every 1h", Body: "hourly"}}}
	pb := jobs.Policy{MaxReserves: 3, MaxReady: 5, Overflow: jobs.OverflowBury}
	if asSet {
		_, _, err := s.q.ReplacePoliciesSeq(map[string]jobs.Policy{"a": pa, "b": pb})
		require.NoError(t, err)
	} else {
		_, err := s.q.SetPolicySeq("a", pa)
		require.NoError(t, err)
		_, err = s.q.SetPolicySeq("b", pb)
		require.NoError(t, err)
	}
	s.clock.Advance(time.Hour)
	s.q.Tick() // fired at t0+1h
	require.Equal(t, []string{"hourly"}, s.drain("a"))
	s.churnUntilCompacted("w", 2)
	s.restart()
	got, ok := s.q.Policy("a")
	require.True(t, ok)
	require.Equal(t, pa, got)
	got, ok = s.q.Policy("b")
	require.True(t, ok)
	require.Equal(t, pb, got)
	s.clock.Advance(59 * time.Minute)
	s.q.Tick()
	require.Empty(t, s.drain("a"), "the progress survived: the next time is t0+2h")
	s.clock.Advance(time.Minute)
	s.q.Tick()
	s.put(s.session("w"), 0, 0, "sync")
	s.restart()
	require.Equal(t, []string{"hourly"}, s.drain("a"))
}

// TestPolicySetCrashRestart: after a crash the policies are exactly those
// of the last policy set record, with the policies set before it that it
// left out gone, and overflow modes kept.
func TestPolicySetCrashRestart(t *testing.T) {
	s := newServer(t, Options{})
	_, err := s.q.SetPolicySeq("old", jobs.Policy{MaxReady: 1})
	require.NoError(t, err)
	set := map[string]jobs.Policy{
		"a": {MaxReady: 2, Overflow: jobs.OverflowDeadLetter, DeadLetter: "a-spill"},
		"b": {MaxReserves: 1},
	}
	_, seq, err := s.q.ReplacePoliciesSeq(set)
	require.NoError(t, err)
	s.wait(seq)
	c := s.crashCopy()
	require.Equal(t, set, c.q.Policies())
	seq, err = c.q.SetPolicySeq("c", jobs.Policy{MaxReady: 3, Overflow: jobs.OverflowReject})
	require.NoError(t, err)
	c.wait(seq)
	c2 := c.crashCopy()
	set["c"] = jobs.Policy{MaxReady: 3, Overflow: jobs.OverflowReject}
	require.Equal(t, set, c2.q.Policies(), "a policy record after a set adds to it")
}

// TestPolicyReserveCountSurvivesTimeouts: in a tube whose policy counts
// reserves, a TTR running out is logged, so its reserve count survives a
// crash (elsewhere a timeout is not logged, as before).
func TestPolicyReserveCountSurvivesTimeouts(t *testing.T) {
	s := newServer(t, Options{})
	seq, err := s.q.SetPolicySeq("work", jobs.Policy{MaxReserves: 5})
	require.NoError(t, err)
	s.wait(seq)
	w := s.session("work")
	id := s.put(w, 1, 0, "job")
	for range 2 {
		s.reserve(w, id)
		s.clock.Advance(time.Minute + time.Second)
		s.q.Tick()
	}
	s.put(w, 2, 0, "marker")
	c := s.crashCopy()
	st := c.stats(id)
	require.Equal(t, uint32(2), st.Reserves)
	require.Equal(t, uint32(2), st.Timeouts)
}
