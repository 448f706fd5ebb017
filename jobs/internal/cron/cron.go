// Package cron parses the recurring times of a tube policy's schedule and
// finds the next one: five-field cron expressions (minute, hour, day of
// month, month, day of week; "*", numbers, ranges "a-b", lists "a,b",
// steps "*/n", "a-b/n" and "a/n"; day of week 0-7 with 0 and 7 Sunday;
// month names JAN-DEC and day names SUN-SAT in any case, alone or in
// ranges and lists), cron's shorthands (@yearly, @annually, @monthly,
// @weekly, @daily, @midnight, @hourly), and "@every DURATION" (a Go
// duration of at least one second). A five-field expression is read in a
// time zone (ParseIn; UTC by default).
//
// As in classic cron, when both the day of month and the day of week are
// restricted (neither starts with "*"), a day matches if either does. An
// expression no day can match ("0 0 31 2 *") is refused.
//
// Daylight saving follows Vixie cron and cronie (next.go): in a
// spring-forward gap a "fixed-time" expression (neither minute nor hour
// starts with "*") fires once, at the first instant after the gap, and a
// wildcard one skips the missing times; in a fall-back repeat a fixed-time
// expression fires at the first occurrence only, a wildcard one at both.
//
// A Schedule is immutable and safe for concurrent use. The package keeps
// no clock and starts no goroutine; the caller passes the time to start
// from. Zones come from the standard library's database, with the IANA
// database embedded (zone.go).
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
	wild                  bool           // minute or hour starts with "*" (cron's wildcard job)
	loc                   *time.Location // nil: UTC
}

// MinEvery is the shortest @every interval.
const MinEvery = time.Second

// shorthands are cron's @names for five-field expressions.
var shorthands = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

// Parse reads expr in UTC. The error says which field is wrong and why.
func Parse(expr string) (Schedule, error) { return ParseIn(expr, "") }

// ParseIn reads expr with its five fields in the time zone tz (an IANA
// name such as "Europe/Berlin"; "" or "UTC" for UTC). @every takes no
// zone: it counts from its previous time.
func ParseIn(expr, tz string) (Schedule, error) {
	expr = strings.TrimSpace(expr)
	if rest, ok := strings.CutPrefix(expr, "@every"); ok {
		if tz != "" {
			return Schedule{}, errors.New("@every counts from its previous time: a time zone does not apply (remove tz)")
		}
		return parseEvery(strings.TrimSpace(rest))
	}
	if strings.HasPrefix(expr, "@") {
		full, ok := shorthands[strings.ToLower(expr)]
		if !ok {
			return Schedule{}, fmt.Errorf("unknown shorthand %q: want @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly or @every DURATION", expr)
		}
		expr = full
	}
	s, err := parseFields(expr)
	if err != nil {
		return Schedule{}, err
	}
	if err := s.possible(); err != nil {
		return Schedule{}, err
	}
	if s.loc, err = LoadZone(tz); err != nil {
		return Schedule{}, err
	}
	return s, nil
}

// IsEvery reports whether expr is an @every expression.
func IsEvery(expr string) bool { return strings.HasPrefix(strings.TrimSpace(expr), "@every") }

func parseEvery(rest string) (Schedule, error) {
	d, err := time.ParseDuration(rest)
	if err != nil {
		return Schedule{}, fmt.Errorf("@every needs a duration such as 30s or 5m: %q", rest)
	}
	if d < MinEvery {
		return Schedule{}, fmt.Errorf("@every %v is shorter than %v", d, MinEvery)
	}
	return Schedule{every: d}, nil
}

// field describes one of the five fields.
type field struct {
	name   string
	lo, hi int
	names  []string // names[i] stands for lo+i; nil: numbers only
}

var (
	monthNames = []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}
	dayNames   = []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}
	fieldSpecs = [5]field{
		{"minute", 0, 59, nil}, {"hour", 0, 23, nil}, {"day of month", 1, 31, nil},
		{"month", 1, 12, monthNames}, {"day of week", 0, 7, dayNames},
	}
)

func parseFields(expr string) (Schedule, error) {
	f := strings.Fields(expr)
	if len(f) != 5 {
		return Schedule{}, fmt.Errorf("want 5 fields (minute hour day-of-month month day-of-week), a shorthand such as @daily, or @every DURATION; got %d fields", len(f))
	}
	var s Schedule
	dst := [5]*uint64{&s.min, &s.hour, &s.dom, &s.month, &s.dow}
	for i, spec := range fieldSpecs {
		bits, err := parseField(f[i], spec)
		if err != nil {
			return Schedule{}, fmt.Errorf("%s %q: %w", spec.name, f[i], err)
		}
		*dst[i] = bits
	}
	s.domStar, s.dowStar = strings.HasPrefix(f[2], "*"), strings.HasPrefix(f[4], "*")
	s.wild = strings.HasPrefix(f[0], "*") || strings.HasPrefix(f[1], "*")
	if s.dow&(1<<7) != 0 {
		s.dow = s.dow&^(1<<7) | 1
	}
	return s, nil
}

// parseField reads one comma-separated field into a bit set of [lo, hi].
func parseField(f string, spec field) (uint64, error) {
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
		a, b := spec.lo, spec.hi
		switch {
		case rng == "*":
		case strings.Contains(rng, "-"):
			x, y, _ := strings.Cut(rng, "-")
			var err error
			if a, err = spec.value(x); err != nil {
				return 0, err
			}
			if b, err = spec.value(y); err != nil {
				return 0, err
			}
			if a > b {
				return 0, fmt.Errorf("range %s runs backwards", rng)
			}
		default:
			n, err := spec.value(rng)
			if err != nil {
				return 0, err
			}
			a, b = n, n
			if hasStep {
				b = spec.hi // "5/15" means 5-hi/15, as in Vixie cron
			}
		}
		for v := a; v <= b; v += step {
			bits |= 1 << v
		}
	}
	return bits, nil
}

// value reads a number, or a name of the field, within [lo, hi].
func (spec field) value(s string) (int, error) {
	for i, name := range spec.names {
		if strings.EqualFold(s, name) {
			return spec.lo + i, nil
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		if spec.names != nil {
			return 0, fmt.Errorf("%q is not a number or a name (%s-%s)", s, spec.names[0], spec.names[len(spec.names)-1])
		}
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if n < spec.lo || n > spec.hi {
		return 0, fmt.Errorf("%d is outside %d-%d", n, spec.lo, spec.hi)
	}
	return n, nil
}

// daysIn is the most days each month can have (February in a leap year).
var daysIn = [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}

// possible refuses an expression no day can match: a day of month that no
// month of the expression has, while the day of week does not widen it
// (it starts with "*", so both must match).
func (s Schedule) possible() error {
	if s.domStar || !s.dowStar {
		return nil // every day of some month, or any day of the listed weekdays
	}
	for m := 1; m <= 12; m++ {
		if s.month&(1<<m) == 0 {
			continue
		}
		for d := 1; d <= daysIn[m]; d++ {
			if s.dom&(1<<d) != 0 {
				return nil
			}
		}
	}
	return errors.New("never fires: no month of the expression has any of its days of month")
}

// Every returns the interval of an @every expression, or 0.
func (s Schedule) Every() time.Duration { return s.every }

// Location returns the zone a five-field expression is read in (UTC by
// default; UTC for @every).
func (s Schedule) Location() *time.Location {
	if s.loc == nil {
		return time.UTC
	}
	return s.loc
}
