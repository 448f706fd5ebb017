package cron

import (
	"fmt"
	"testing"
	"time"
)

// inZone reads "2006-01-02 15:04" as a UTC instant.
func utc(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04", s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestNextAcrossDST pins the daylight-saving rules (cronie's) on Berlin's
// 2026 transitions: 02:00 CET jumps to 03:00 CEST at 01:00 UTC on March
// 29th; 03:00 CEST falls back to 02:00 CET at 01:00 UTC on October 25th.
func TestNextAcrossDST(t *testing.T) {
	for _, tc := range []struct {
		name, expr, tz, from string
		want                 []string // UTC instants
	}{
		{"fixed time in the gap fires once, right after it", "30 2 * * *", "Europe/Berlin", "2026-03-28 12:00",
			[]string{"2026-03-29 01:00", "2026-03-30 00:30"}},
		{"two fixed times in the gap: one fire", "0,30 2 * * *", "Europe/Berlin", "2026-03-28 12:00",
			[]string{"2026-03-29 01:00", "2026-03-30 00:00", "2026-03-30 00:30"}},
		{"wildcard hour skips the gap", "30 * * * *", "Europe/Berlin", "2026-03-28 23:00",
			[]string{"2026-03-28 23:30", "2026-03-29 00:30", "2026-03-29 01:30"}},
		{"wildcard minute skips the gap", "*/30 2 * * *", "Europe/Berlin", "2026-03-28 12:00",
			[]string{"2026-03-30 00:00", "2026-03-30 00:30"}},
		{"fixed time in the repeat fires at the first", "30 2 * * *", "Europe/Berlin", "2026-10-24 12:00",
			[]string{"2026-10-25 00:30", "2026-10-26 01:30"}},
		{"fixed time asked between the two: next day", "30 2 * * *", "Europe/Berlin", "2026-10-25 01:00",
			[]string{"2026-10-26 01:30"}},
		{"wildcard hour fires in both", "30 * * * *", "Europe/Berlin", "2026-10-24 22:00",
			[]string{"2026-10-24 22:30", "2026-10-24 23:30", "2026-10-25 00:30", "2026-10-25 01:30", "2026-10-25 02:30"}},
		{"wildcard minute fires in both", "*/20 2 * * *", "Europe/Berlin", "2026-10-24 12:00",
			[]string{"2026-10-25 00:00", "2026-10-25 00:20", "2026-10-25 00:40", "2026-10-25 01:00", "2026-10-25 01:20",
				"2026-10-25 01:40", "2026-10-26 01:00"}},
		{"names in a zone", "0 9 * * MON-FRI", "America/New_York", "2026-03-06 15:00", // Friday 10:00 EST
			[]string{"2026-03-09 13:00", "2026-03-10 13:00"}}, // Monday 09:00 EDT
		{"half-hour transition (Lord Howe)", "15 2 * * *", "Australia/Lord_Howe", "2026-10-03 00:00",
			[]string{"2026-10-03 15:30", "2026-10-04 15:15"}}, // 02:00 +10:30 -> 02:30 +11 on Oct 4th local
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseIn(tc.expr, tc.tz)
			if err != nil {
				t.Fatal(err)
			}
			cur := utc(tc.from)
			for _, w := range tc.want {
				cur = s.Next(cur)
				if !cur.Equal(utc(w)) {
					t.Fatalf("%q in %s: got %s (%s), want %s UTC", tc.expr, tc.tz, cur.UTC(), cur, w)
				}
				if cur.Location().String() != tc.tz {
					t.Fatalf("the time is in %s, want %s", cur.Location(), tc.tz)
				}
			}
		})
	}
}

// TestNextMatchesCronie compares Next with a model of cronie's main loop,
// minute by minute, around each transition of a year in several zones:
// the wall clock advances one minute (run what matches), jumps forward up
// to three hours (run wildcard jobs for the new minute, fixed-time jobs
// for each minute skipped and the new one, once), or goes back (only
// wildcard jobs run until the clock passes the latest minute already
// seen).
func TestNextMatchesCronie(t *testing.T) {
	exprs := []string{"* * * * *", "*/7 * * * *", "30 * * * *", "0 * * * *", "30 2 * * *", "0,30 2 * * *",
		"15 1-3 * * *", "*/20 2 * * *", "0 0 * * *", "45 23 * * *", "10 3 * * SUN"}
	zones := []string{"Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "Asia/Tehran"}
	for _, tz := range zones {
		loc, err := LoadZone(tz)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range transitions(loc, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 2) {
			for _, expr := range exprs {
				s, err := ParseIn(expr, tz)
				if err != nil {
					t.Fatal(err)
				}
				from, to := tr.Add(-8*time.Hour), tr.Add(8*time.Hour)
				want := cronie(s, from, to)
				var got []time.Time
				for cur := s.Next(from); !cur.After(to); cur = s.Next(cur) {
					got = append(got, cur)
				}
				if fmt.Sprint(utcs(got)) != fmt.Sprint(utcs(want)) {
					t.Errorf("%q in %s around %s:\n got  %v\n want %v", expr, tz, tr, utcs(got), utcs(want))
				}
			}
		}
	}
}

// transitions returns the first n zone changes of loc after from.
func transitions(loc *time.Location, from time.Time, n int) []time.Time {
	var out []time.Time
	for t := from; len(out) < n; {
		_, end := t.In(loc).ZoneBounds()
		if end.IsZero() {
			break
		}
		out = append(out, end)
		t = end
	}
	return out
}

// cronie models cronie's loop: the instants, after from and up to to, at
// which it would start the job.
func cronie(s Schedule, from, to time.Time) []time.Time {
	loc := s.Location()
	var out []time.Time
	seen := wallOf(from.Truncate(time.Minute).In(loc)) // the latest wall minute handled
	for i := from.Truncate(time.Minute).Add(time.Minute); !i.After(to); i = i.Add(time.Minute) {
		w := wallOf(i.In(loc))
		jump := w.Sub(seen)
		fire := false
		switch {
		case jump == time.Minute:
			fire = s.matchesWall(w)
		case jump > time.Minute && jump <= dstSlack+time.Minute:
			fire = s.wild && s.matchesWall(w)
			for v := seen.Add(time.Minute); !v.After(w) && !s.wild; v = v.Add(time.Minute) {
				fire = fire || s.matchesWall(v)
			}
		case jump <= 0:
			fire = s.wild && s.matchesWall(w)
		}
		if fire {
			out = append(out, i)
		}
		if w.After(seen) {
			seen = w
		}
	}
	return out
}

func (s Schedule) matchesWall(w time.Time) bool {
	return s.nextWall(w.Add(-time.Minute)).Equal(w)
}

func utcs(ts []time.Time) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.UTC().Format("01-02 15:04")
	}
	return out
}
