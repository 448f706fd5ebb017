package jobs

import "time"

// When each schedule of a policy last fired and fires next, for the admin
// API, stalkctl and the dashboard. A schedule's progress (fired) is the
// time it last fired at, or, until it first fires, the time it counts
// from (when it was set); ran tells the two apart. The journal keeps the
// progress but not ran: read back, a five-field schedule's progress is a
// time it fired at exactly when it is one of its times (a policy is set at
// a clock reading, almost never on a cron minute to the nanosecond); an
// @every schedule's cannot be told, and shows no last run until it fires
// again.

// ScheduleRun is when one schedule of a policy last fired and next fires,
// in the schedule's zone (UTC for @every).
type ScheduleRun struct {
	// Last is the latest time it fired at (its job put, or refused by
	// max_ready or drain mode); zero if it has not fired since it was set
	// (as far as this queue knows: see PolicyRuns).
	Last time.Time
	// Next is the next time it fires; at or before now when it is due and
	// the queue's timers have not run yet. Zero: never (not reached by a
	// valid schedule).
	Next time.Time
}

// PolicyRuns returns a copy of the policy of the tube called tube and, per
// schedule, when it last fired and next fires. Safe for concurrent use; it
// takes the lock that schedules fire under, briefly.
func (q *Queue) PolicyRuns(tube string) (Policy, []ScheduleRun, bool) {
	ps := &q.pols
	ps.setMu.Lock()
	defer ps.setMu.Unlock()
	e := ps.byName[tube] // setMu held: no one else writes byName
	if e == nil {
		return Policy{}, nil, false
	}
	runs := make([]ScheduleRun, len(e.fired))
	for i, f := range e.fired {
		loc := e.c.crons[i].Location()
		if e.ran[i] {
			runs[i].Last = time.Unix(0, f).In(loc)
		}
		if n, ok := e.c.next(i, f); ok {
			runs[i].Next = time.Unix(0, n).In(loc)
		}
	}
	return e.c.p.Clone(), runs, true
}

// isTime reports whether t (Clock ns) is one of schedule i's times: a time
// a five-field schedule fired at. Always false for @every.
func (c *compiled) isTime(i int, t int64) bool {
	if c.crons[i].Every() > 0 {
		return false
	}
	n, ok := c.next(i, t-1)
	return ok && n == t
}
