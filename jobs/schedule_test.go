package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// scheduled returns the bodies of the ready jobs of tube name, deleting them.
func (f *fixture) scheduled(name string) []string {
	f.t.Helper()
	var got []string
	f.takeReady(name, func(d JobData) { got = append(got, string(d.Body())) })
	return got
}

// takeReady reserves each ready job of tube name, hands it to fn, and
// deletes it.
func (f *fixture) takeReady(name string, fn func(JobData)) {
	f.t.Helper()
	s, _ := f.session()
	defer s.Close()
	_, err := s.Watch([]byte(name))
	require.NoError(f.t, err)
	for {
		d, err := s.Reserve(0)
		if err == ErrTimedOut {
			return
		}
		require.NoError(f.t, err)
		fn(d)
		_, err = s.Delete(d.ID)
		require.NoError(f.t, err)
	}
}

func TestScheduleEvery(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.q.SetPolicy("cron", Policy{Schedule: []Schedule{
		{Cron: "@every 30s", Body: "a", Priority: 5, TTR: 0},
	}}))
	f.advance(29 * time.Second)
	require.Empty(t, f.scheduled("cron"))
	f.advance(time.Second)
	// The job is put into a tube that did not exist.
	st, err := f.q.StatsTube([]byte("cron"))
	require.NoError(t, err)
	require.Equal(t, uint64(1), st.ScheduledPuts)
	require.Equal(t, int64(1), st.Ready)
	require.Equal(t, []string{"a"}, f.scheduled("cron"))
	f.advance(30 * time.Second)
	f.advance(30 * time.Second)
	require.Equal(t, []string{"a", "a"}, f.scheduled("cron"))
	// A late tick puts once for all the times it missed.
	f.advance(5 * time.Minute)
	require.Equal(t, []string{"a"}, f.scheduled("cron"))
	f.advance(29 * time.Second)
	require.Empty(t, f.scheduled("cron"), "the next time is counted from the last one due")
	f.advance(time.Second)
	require.Equal(t, []string{"a"}, f.scheduled("cron"))
}

func TestScheduleCronUTCAndJobFields(t *testing.T) {
	f := newFixture(t) // t0 is 2023-11-14 22:13:20 UTC
	require.NoError(t, f.q.SetPolicy("c", Policy{Schedule: []Schedule{
		{Cron: "15 22 * * *", Body: "daily", Priority: 3, TTR: 60},
	}}))
	f.advance(99 * time.Second) // 22:14:59
	require.Empty(t, f.scheduled("c"))
	f.advance(time.Second) // 22:15:00
	s, _ := f.session()
	_, err := s.Watch([]byte("c"))
	require.NoError(t, err)
	d, err := s.Reserve(0)
	require.NoError(t, err)
	js, err := f.q.StatsJob(d.ID)
	require.NoError(t, err)
	require.Equal(t, uint32(3), js.Pri)
	require.Equal(t, time.Minute, js.TTR)
	require.Equal(t, "daily", string(d.Body()))
	f.advance(23*time.Hour + 59*time.Minute)
	_, err = s.Delete(d.ID)
	require.NoError(t, err)
	require.Empty(t, f.scheduled("c"))
	f.advance(time.Minute)
	require.Equal(t, []string{"daily"}, f.scheduled("c"))
}

func TestScheduleReplaceKeepsProgressRemoveStops(t *testing.T) {
	f := newFixture(t)
	a := Schedule{Cron: "@every 1m", Body: "a"}
	require.NoError(t, f.q.SetPolicy("x", Policy{Schedule: []Schedule{a}}))
	f.advance(40 * time.Second)
	// A new policy with the same schedule plus another: "a" keeps its time.
	require.NoError(t, f.q.SetPolicy("x", Policy{MaxReady: 5, Schedule: []Schedule{{Cron: "@every 1m", Body: "b"}, a}}))
	f.advance(20 * time.Second)
	require.Equal(t, []string{"a"}, f.scheduled("x"))
	f.advance(40 * time.Second)
	require.Equal(t, []string{"b"}, f.scheduled("x"))
	_, err := f.q.RemovePolicy("x")
	require.NoError(t, err)
	f.advance(time.Hour)
	require.Empty(t, f.scheduled("x"))
}

func TestScheduleRespectsMaxReady(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.q.SetPolicy("x", Policy{MaxReady: 2, Schedule: []Schedule{{Cron: "@every 1s", Body: "a"}}}))
	for range 5 {
		f.advance(time.Second)
	}
	st, err := f.q.StatsTube([]byte("x"))
	require.NoError(t, err)
	require.Equal(t, int64(2), st.Ready)
	require.Equal(t, uint64(2), st.ScheduledPuts)
	require.Equal(t, uint64(3), st.RefusedFull)
}

// TestScheduleRestoreFiresMissedOnce: progress read back from a journal
// whose time passed fires once at the first tick, then resumes.
func TestScheduleRestoreFiresMissedOnce(t *testing.T) {
	f := newFixture(t)
	p := Policy{Schedule: []Schedule{{Cron: "@every 1m", Body: "a"}, {Cron: "@every 1h", Body: "b"}}}
	// a last fired 10 minutes ago (missed 9 times), b 10 minutes ago (not due)
	fired := []int64{t0 - int64(10*time.Minute), t0 - int64(10*time.Minute)}
	require.NoError(t, f.q.RestorePolicy("x", p, fired))
	f.advance(0)
	require.Equal(t, []string{"a"}, f.scheduled("x"))
	f.advance(59 * time.Second)
	require.Empty(t, f.scheduled("x"))
	f.advance(time.Second)
	require.Equal(t, []string{"a"}, f.scheduled("x"))
	f.advance(49 * time.Minute)
	got := f.scheduled("x")
	require.Contains(t, got, "b")
}

// TestScheduleWakesWaiter: a worker blocked on the tube gets the job.
func TestScheduleWakesWaiter(t *testing.T) {
	f := newFixture(t)
	w, wakes := f.session()
	_, err := w.Watch([]byte("x"))
	require.NoError(t, err)
	_, err = w.Reserve(-1)
	require.ErrorIs(t, err, ErrWaiting)
	require.NoError(t, f.q.SetPolicy("x", Policy{Schedule: []Schedule{{Cron: "@every 10s", Body: "a"}}}))
	f.advance(10 * time.Second)
	require.Equal(t, 1, wakes.n)
	d, err := w.TakeOutcome()
	require.NoError(t, err)
	require.Equal(t, "a", string(d.Body()))
}
