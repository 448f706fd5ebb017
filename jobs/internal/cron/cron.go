// Package cron parses the recurring times of a tube policy's schedule and
// finds the next one: five-field cron expressions read in UTC (minute, hour,
// day of month, month, day of week; "*", numbers, ranges "a-b", lists
// "a,b", steps "*/n" and "a-b/n"; day of week 0-7 with 0 and 7 Sunday) and
// "@every DURATION" (a Go duration of at least one second).
//
// As in classic cron, when both the day of month and the day of week are
// restricted (neither is "*"), a day matches if either does. Names (JAN,
// MON) and the @hourly-style shorthands are not accepted.
//
// A Schedule is immutable and safe for concurrent use. The package is pure:
// no clock, no goroutine; the caller passes the time to start from.
package cron

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Schedule is a parsed expression.
type Schedule struct {
	every                 time.Duration // @every; 0 for a five-field expression
	min, hour, dom, month uint64        // bit i set: value i matches
	dow                   uint64        // bits 0-6, Sunday 0
	domStar, dowStar      bool
}

// MinEvery is the shortest @every interval.
const MinEvery = time.Second

// horizon bounds the search for a five-field expression that never matches
// (such as "0 0 30 2 *").
const horizon = 5 * 366 * 24 * time.Hour

// Parse reads expr. The error says which field is wrong and why.
func Parse(expr string) (Schedule, error) {
	expr = strings.TrimSpace(expr)
	if rest, ok := strings.CutPrefix(expr, "@every"); ok {
		d, err := time.ParseDuration(strings.TrimSpace(rest))
		if err != nil {
			return Schedule{}, fmt.Errorf("@every needs a duration such as 30s or 5m: %q", strings.TrimSpace(rest))
		}
		if d < MinEvery {
			return Schedule{}, fmt.Errorf("@every %v is shorter than %v", d, MinEvery)
		}
		return Schedule{every: d}, nil
	}
	f := strings.Fields(expr)
	if len(f) != 5 {
		return Schedule{}, fmt.Errorf("want 5 fields (minute hour day-of-month month day-of-week) or @every DURATION, got %d", len(f))
	}
	var s Schedule
	var err error
	fields := [...]struct {
		name     string
		lo, hi   int
		dst      *uint64
		wildcard *bool
	}{
		{"minute", 0, 59, &s.min, nil},
		{"hour", 0, 23, &s.hour, nil},
		{"day of month", 1, 31, &s.dom, &s.domStar},
		{"month", 1, 12, &s.month, nil},
		{"day of week", 0, 7, &s.dow, &s.dowStar},
	}
	for i, fd := range fields {
		if *fd.dst, err = parseField(f[i], fd.lo, fd.hi); err != nil {
			return Schedule{}, fmt.Errorf("%s %q: %w", fd.name, f[i], err)
		}
		if fd.wildcard != nil {
			*fd.wildcard = strings.HasPrefix(f[i], "*")
		}
	}
	if s.dow&(1<<7) != 0 {
		s.dow = s.dow&^(1<<7) | 1
	}
	return s, nil
}

// parseField reads one comma-separated field into a bit set of [lo, hi].
func parseField(f string, lo, hi int) (uint64, error) {
	var bits uint64
	for _, part := range strings.Split(f, ",") {
		rng, stepStr, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepStr)
			if err != nil || n < 1 {
				return 0, errors.New("a step must be a number of at least 1")
			}
			step = n
		}
		a, b := lo, hi
		switch {
		case rng == "*":
		case strings.Contains(rng, "-"):
			x, y, _ := strings.Cut(rng, "-")
			var err error
			if a, err = number(x, lo, hi); err != nil {
				return 0, err
			}
			if b, err = number(y, lo, hi); err != nil {
				return 0, err
			}
			if a > b {
				return 0, fmt.Errorf("range %d-%d runs backwards", a, b)
			}
		default:
			n, err := number(rng, lo, hi)
			if err != nil {
				return 0, err
			}
			a, b = n, n
			if hasStep {
				b = hi // "5/15" means 5-hi/15, as in Vixie cron
			}
		}
		for v := a; v <= b; v += step {
			bits |= 1 << v
		}
	}
	return bits, nil
}

func number(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("%d is outside %d-%d", n, lo, hi)
	}
	return n, nil
}

// Every returns the interval of an @every expression, or 0.
func (s Schedule) Every() time.Duration { return s.every }

// Next returns the first time of the schedule strictly after t (in UTC),
// or the zero Time if a five-field expression matches no day within five
// years (it never will).
func (s Schedule) Next(t time.Time) time.Time {
	if s.every > 0 {
		return t.Add(s.every)
	}
	t = t.UTC().Truncate(time.Minute).Add(time.Minute)
	end := t.Add(horizon)
	for t.Before(end) {
		switch {
		case s.month&(1<<uint(t.Month())) == 0:
			t = time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
		case !s.dayMatches(t):
			t = time.Date(t.Year(), t.Month(), t.Day()+1, 0, 0, 0, 0, time.UTC)
		case s.hour&(1<<uint(t.Hour())) == 0:
			t = t.Truncate(time.Hour).Add(time.Hour)
		case s.min&(1<<uint(t.Minute())) == 0:
			t = t.Add(time.Minute)
		default:
			return t
		}
	}
	return time.Time{}
}

func (s Schedule) dayMatches(t time.Time) bool {
	d := s.dom&(1<<uint(t.Day())) != 0
	w := s.dow&(1<<uint(t.Weekday())) != 0
	if s.domStar || s.dowStar {
		return d && w
	}
	return d || w
}
