package cron

import "time"

// Finding the next time. A five-field expression matches wall-clock times
// of its zone; nextWall finds them on a wall clock with no transitions
// (wall times held in UTC-labelled time.Time values), and wallInstants
// turns each into the instants it stands for across daylight-saving
// transitions, the way Vixie cron and cronie run jobs around them:
//
//   - a wall time that occurs once is one instant;
//   - a wall time in a spring-forward gap (02:30 when 02:00 jumps to
//     03:00) is, for a fixed-time expression, the first instant after the
//     gap (cronie runs the fixed-time jobs of the skipped minutes as soon as
//     the clock has jumped); for a wildcard expression (minute or hour
//     starts with "*") it is nothing (cronie runs wildcard jobs for the
//     current minute only);
//   - a wall time in a fall-back repeat (01:30 twice) is, for a fixed-time
//     expression, its first occurrence (cronie does not run fixed-time jobs
//     again while the clock repeats); for a wildcard expression, both.
//
// Like cronie, only transitions of up to three hours count as
// daylight saving; the times in a longer gap (a zone that changed its
// standard offset) are skipped.

// horizon bounds the search for a matching wall time: long enough for an
// expression such as "0 0 29 2 1" (February 29th on a Monday, every 28
// years at worst), short enough to end.
const horizon = 30 * 366 * 24 * time.Hour

// dstSlack is the longest transition treated as daylight saving (cronie's
// 3 hours), and how far around t the slow path looks.
const dstSlack = 3 * time.Hour

// zoneSpan covers every instant a wall time can stand for: offsets run
// from -12h to +14h.
const zoneSpan = 15 * time.Hour

// Next returns the first time of the schedule strictly after t, in the
// schedule's zone (UTC for @every: t plus the interval), or the zero Time
// if a five-field expression matches no time within 30 years.
func (s Schedule) Next(t time.Time) time.Time {
	if s.every > 0 {
		return t.Add(s.every)
	}
	loc := s.Location()
	if loc == time.UTC {
		return s.nextWall(t.UTC())
	}
	lt := t.In(loc)
	start, end := lt.ZoneBounds()
	if start.IsZero() || t.Sub(start) >= dstSlack {
		// No transition just behind t: the next wall time, at t's offset,
		// is the answer if it comes before the next transition.
		w := s.nextWall(wallOf(lt))
		if w.IsZero() {
			return w
		}
		_, off := lt.Zone()
		if i := w.Add(-time.Duration(off) * time.Second); end.IsZero() || i.Before(end) {
			return i.In(loc)
		}
	}
	return s.nextAcross(t)
}

// nextAcross is Next near a transition: it walks the wall times from a
// little before t's and keeps the earliest instant after t.
func (s Schedule) nextAcross(t time.Time) time.Time {
	loc := s.Location()
	w := wallOf(t.In(loc)).Add(-dstSlack)
	var best time.Time
	for {
		if w = s.nextWall(w); w.IsZero() {
			return best
		}
		if !best.IsZero() && w.Sub(wallOf(best)) > dstSlack {
			return best // later wall times stand for later instants
		}
		is, n := s.wallInstants(w)
		for _, i := range is[:n] {
			if i.After(t) && (best.IsZero() || i.Before(best)) {
				best = i.In(loc)
			}
		}
	}
}

// wallInstants returns the instants wall time w (UTC-labelled) stands for
// in the schedule's zone, earliest first: see the rules above.
func (s Schedule) wallInstants(w time.Time) (is [2]time.Time, n int) {
	loc := s.Location()
	before, after := offsetAt(w.Add(-zoneSpan), loc), offsetAt(w.Add(zoneSpan), loc)
	// The larger offset gives the earlier instant.
	for _, off := range [2]time.Duration{max(before, after), min(before, after)} {
		i := w.Add(-off)
		if offsetAt(i, loc) == off && (n == 0 || !i.Equal(is[0])) {
			is[n] = i
			n++
		}
	}
	switch {
	case n == 2 && !s.wild:
		n = 1 // a repeat: fixed-time expressions fire at the first occurrence
	case n == 0 && !s.wild && after-before <= dstSlack:
		// A gap: the first instant after it, where the zone changed.
		is[0], _ = w.Add(-before).In(loc).ZoneBounds()
		n = 1
	}
	return is, n
}

func offsetAt(t time.Time, loc *time.Location) time.Duration {
	_, off := t.In(loc).Zone()
	return time.Duration(off) * time.Second
}

// wallOf returns t's wall clock as a UTC-labelled time.
func wallOf(t time.Time) time.Time {
	y, mo, d := t.Date()
	h, mi, sec := t.Clock()
	return time.Date(y, mo, d, h, mi, sec, t.Nanosecond(), time.UTC)
}

// nextWall returns the first wall time matching the expression strictly
// after w (both UTC-labelled, no transitions), or the zero Time.
func (s Schedule) nextWall(w time.Time) time.Time {
	t := w.Truncate(time.Minute).Add(time.Minute)
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
