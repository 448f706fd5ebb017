package cron

import (
	"strings"
	"testing"
	"time"
)

func at(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05", s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestNext(t *testing.T) {
	for _, tc := range []struct {
		expr, from string
		want       []string // successive times
	}{
		{"* * * * *", "2026-11-26 22:47:55", []string{"2026-11-26 22:48:00", "2026-11-26 22:49:00"}},
		{"*/5 * * * *", "2026-11-26 22:47:00", []string{"2026-11-26 22:50:00", "2026-11-26 22:55:00", "2026-11-26 23:00:00"}},
		{"0 0 * * *", "2026-12-31 23:59:59", []string{"2027-01-01 00:00:00", "2027-01-02 00:00:00"}},
		{"30 9 * * 1-5", "2026-11-27 10:00:00", []string{"2026-11-30 09:30:00", "2026-12-01 09:30:00"}}, // Fri -> Mon
		{"0 12 1,15 * *", "2026-11-10 00:00:00", []string{"2026-11-15 12:00:00", "2026-12-01 12:00:00"}},
		{"0 0 29 2 *", "2026-01-01 00:00:00", []string{"2028-02-29 00:00:00"}}, // leap day
		{"0 0 * * 7", "2026-11-26 00:00:00", []string{"2026-11-29 00:00:00"}},  // 7 is Sunday
		{"0 0 13 * 5", "2026-11-01 00:00:00", []string{"2026-11-06 00:00:00", "2026-11-13 00:00:00"}},
		{"10-20/5 1 * * *", "2026-11-26 01:12:00", []string{"2026-11-26 01:15:00", "2026-11-26 01:20:00", "2026-11-27 01:10:00"}},
		{"5/20 * * * *", "2026-11-26 01:00:00", []string{"2026-11-26 01:05:00", "2026-11-26 01:25:00", "2026-11-26 01:45:00", "2026-11-26 02:05:00"}},
		{"0 0 1 */6 *", "2026-02-01 00:00:00", []string{"2026-07-01 00:00:00", "2027-01-01 00:00:00"}},
		{"@every 30s", "2026-11-26 22:47:55", []string{"2026-11-26 22:48:25", "2026-11-26 22:48:55"}},
		{"@every 1h30m", "2026-11-26 22:00:00", []string{"2026-11-26 23:30:00"}},
		// Names, alone, in ranges and lists, in any case.
		{"30 9 * * mon-FRI", "2026-11-27 10:00:00", []string{"2026-11-30 09:30:00"}},
		{"0 0 1 jan,Jul *", "2026-02-01 00:00:00", []string{"2026-07-01 00:00:00", "2027-01-01 00:00:00"}},
		{"0 8 * DEC sun", "2026-11-26 00:00:00", []string{"2026-12-06 08:00:00", "2026-12-13 08:00:00"}},
		// February 29th on a Sunday ("*/7" is Sunday, and starts with "*": both must match).
		{"0 0 29 2 */7", "2026-01-01 00:00:00", []string{"2032-02-29 00:00:00"}},
		// The shorthands.
		{"@hourly", "2026-11-26 22:47:55", []string{"2026-11-26 23:00:00", "2026-11-27 00:00:00"}},
		{"@daily", "2026-11-26 22:47:55", []string{"2026-11-27 00:00:00"}},
		{"@midnight", "2026-11-26 22:47:55", []string{"2026-11-27 00:00:00"}},
		{"@weekly", "2026-11-26 22:47:55", []string{"2026-11-29 00:00:00", "2026-12-06 00:00:00"}}, // Sundays
		{"@monthly", "2026-11-26 22:47:55", []string{"2026-12-01 00:00:00", "2027-01-01 00:00:00"}},
		{"@yearly", "2026-11-26 22:47:55", []string{"2027-01-01 00:00:00"}},
		{"@Annually", "2026-11-26 22:47:55", []string{"2027-01-01 00:00:00"}},
	} {
		s, err := Parse(tc.expr)
		if err != nil {
			t.Fatalf("%q: %v", tc.expr, err)
		}
		cur := at(tc.from)
		for _, w := range tc.want {
			cur = s.Next(cur)
			if !cur.Equal(at(w)) {
				t.Fatalf("%q from %s: got %s, want %s", tc.expr, tc.from, cur, w)
			}
		}
	}
}

// TestNeverFiresRefused: an expression no day can match is refused at
// parse time, saying why; one that fires rarely is accepted.
func TestNeverFiresRefused(t *testing.T) {
	for _, expr := range []string{"0 0 31 2 *", "0 0 30 2 *", "0 0 31 4,6,9,11 *", "0 0 30,31 FEB */2"} {
		_, err := Parse(expr)
		if err == nil || !strings.Contains(err.Error(), "never fires") {
			t.Errorf("%q: %v, want a never-fires refusal", expr, err)
		}
	}
	for _, expr := range []string{"0 0 29 2 *", "0 0 31 2 1", "0 0 31 1-2 *", "0 0 31 * *"} {
		if _, err := Parse(expr); err != nil {
			t.Errorf("%q: %v", expr, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, expr := range []string{
		"", "* * * *", "* * * * * *", "60 * * * *", "* 24 * * *", "* * 0 * *",
		"* * * 13 *", "* * * * 8", "5-1 * * * *", "*/0 * * * *", "a * * * *",
		"1,,2 * * * *", "@every", "@every 0s", "@every 500ms", "@every x", "@reboot", "@hourl",
		"-1 * * * *", "1-2-3 * * * *", "* * * JANUARY *", "* * * * MONDAY", "* * * MON *", "* * * * JAN",
		"MON * * * *", "* * * DEC-JAN *", "* * * * 1/MON",
	} {
		if _, err := Parse(expr); err == nil {
			t.Errorf("%q: accepted", expr)
		}
	}
}

// TestZoneErrors: an unknown zone, the host's Local, and a zone on @every
// are refused with the reason.
func TestZoneErrors(t *testing.T) {
	for _, c := range []struct{ expr, tz, want string }{
		{"0 9 * * *", "Mars/Olympus_Mons", "unknown time zone"},
		{"0 9 * * *", "Local", "host's local zone"},
		{"@every 1m", "Europe/Berlin", "does not apply"},
	} {
		_, err := ParseIn(c.expr, c.tz)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q in %q: %v, want %q", c.expr, c.tz, err, c.want)
		}
	}
	for _, tz := range []string{"", "UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu"} {
		if _, err := ParseIn("0 9 * * *", tz); err != nil {
			t.Errorf("tz %q: %v", tz, err)
		}
	}
}
