package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fixtureAt is a fixture whose clock starts at the given UTC time.
func fixtureAt(t *testing.T, utc string) *fixture {
	t.Helper()
	start, err := time.Parse("2006-01-02 15:04", utc)
	require.NoError(t, err)
	clk := NewManualClock(start.UnixNano())
	return &fixture{t: t, clock: clk, q: New(Config{Clock: clk})}
}

// firedAt returns the tube's ready jobs' creation times (UTC, to the
// minute), deleting them.
func (f *fixture) firedAt(name string) []string {
	f.t.Helper()
	var got []string
	f.takeReady(name, func(d JobData) {
		js, err := f.q.StatsJob(d.ID)
		require.NoError(f.t, err)
		got = append(got, time.Unix(0, f.clock.Now()-int64(js.Age)).UTC().Format("01-02 15:04"))
	})
	return got
}

// walkZones advances the clock a minute at a time for d, ticking each
// minute, and returns when each scheduled job of the tubes fixed and wild
// was put (UTC).
func (f *fixture) walkZones(d time.Duration) (fixed, wild []string) {
	for range int(d / time.Minute) {
		f.advance(time.Minute)
		fixed = append(fixed, f.firedAt("fixed")...)
		wild = append(wild, f.firedAt("wild")...)
	}
	return fixed, wild
}

// TestScheduleSpringForwardOnManualClock: in Europe/Berlin, 02:00 CET jumps
// to 03:00 CEST at 01:00 UTC on 2026-03-29. A fixed-time schedule at 02:30
// fires once, right after the jump; a wildcard one at minute 30 of every
// hour skips the missing 02:30.
func TestScheduleSpringForwardOnManualClock(t *testing.T) {
	f := fixtureAt(t, "2026-03-28 22:00")
	require.NoError(t, f.q.SetPolicy("fixed", Policy{Schedule: []Schedule{{Cron: "30 2 * * *", TZ: "Europe/Berlin", Body: "f"}}}))
	require.NoError(t, f.q.SetPolicy("wild", Policy{Schedule: []Schedule{{Cron: "30 * * * *", TZ: "Europe/Berlin", Body: "w"}}}))
	fixed, wild := f.walkZones(5 * time.Hour)
	require.Equal(t, []string{"03-29 01:00"}, fixed, "02:30 does not exist: fired once, at 03:00 CEST")
	require.Equal(t, []string{"03-28 22:30", "03-28 23:30", "03-29 00:30", "03-29 01:30", "03-29 02:30"}, wild,
		"minute 30 of the hours that exist: 23:30, 00:30, 01:30 CET, then 03:30 and 04:30 CEST")
}

// TestScheduleFallBackOnManualClock: 03:00 CEST falls back to 02:00 CET at
// 01:00 UTC on 2026-10-25. A fixed-time schedule at 02:30 fires at the
// first 02:30 only; a wildcard one fires at both.
func TestScheduleFallBackOnManualClock(t *testing.T) {
	f := fixtureAt(t, "2026-10-24 23:00")
	require.NoError(t, f.q.SetPolicy("fixed", Policy{Schedule: []Schedule{{Cron: "30 2 * * *", TZ: "Europe/Berlin", Body: "f"}}}))
	require.NoError(t, f.q.SetPolicy("wild", Policy{Schedule: []Schedule{{Cron: "*/30 2 * * *", TZ: "Europe/Berlin", Body: "w"}}}))
	fixed, wild := f.walkZones(4 * time.Hour)
	require.Equal(t, []string{"10-25 00:30"}, fixed, "02:30 CEST; not again at 02:30 CET")
	require.Equal(t, []string{"10-25 00:00", "10-25 00:30", "10-25 01:00", "10-25 01:30"}, wild,
		"02:00 and 02:30, in CEST and again in CET")
}

// TestScheduleDefaultsAndZeroPriority: in Go a schedule's priority and
// TTR are what it says (0 included); the JSON defaults are pinned in
// package policy and the admin API.
func TestScheduleDefaultsAndZeroPriority(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.q.SetPolicy("s", Policy{Schedule: []Schedule{
		{Cron: "@every 10s", Body: "a", Priority: DefaultSchedulePriority, TTR: DefaultScheduleTTR},
		{Cron: "@every 10s", Body: "b", Priority: 0, TTR: 0},
	}}))
	f.advance(10 * time.Second)
	s, _ := f.session()
	defer s.Close()
	_, err := s.Watch([]byte("s"))
	require.NoError(t, err)
	got := map[string][2]int64{}
	for range 2 {
		d, err := s.Reserve(0)
		require.NoError(t, err)
		js, err := f.q.StatsJob(d.ID)
		require.NoError(t, err)
		got[string(d.Body())] = [2]int64{int64(js.Pri), int64(js.TTR / time.Second)}
	}
	require.Equal(t, map[string][2]int64{"a": {1024, 60}, "b": {0, 1}}, got)
}
