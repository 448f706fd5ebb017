package raft

import (
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// The cluster's time. Deadlines in the replicated state (delays, TTRs,
// pauses, schedules) are times of the leader that made them. A new leader
// whose wall clock is off would fire them early (its clock ahead: a
// reservation ends before its TTR, and the job goes to a second worker;
// delayed jobs come out early) or late (behind). So a node follows the
// leaders' time through the log: every record that says when it was made
// (a put's Created; a reservation's or delay's deadline minus its TTR or
// delay; a pause's start) is evidence of the leader's clock, noted with
// this node's monotonic clock when it is applied. A new leader's queue
// clock is its own clock when that agrees with the evidence (within
// skewAhead ahead, skewBehind behind), and otherwise the evidence carried
// forward by the monotonic clock, with a warning: a node's wall clock
// stepped by an hour changes nothing in the cluster's timers.
//
// Only entries applied after the process started count as evidence of
// now (replayed ones say what time it was, not what time it is); with
// none, the node's own clock is used, never below the latest time
// replayed. A cluster restarted as a whole therefore trusts the first
// leader's clock, as a single server does.

// skewAhead and skewBehind bound how far a new leader's clock may be from
// the cluster's time and still be used: ahead, little (a reservation ends
// that much early); behind, a little more (the evidence itself is as late
// as replication).
const (
	skewAhead  = 100 * time.Millisecond
	skewBehind = time.Second
)

// clusterTime is the evidence of the leaders' clock, kept by the FSM under
// its lock.
type clusterTime struct {
	at       int64     // the latest leader time of a record applied live (ns)
	seen     time.Time // when it was applied (monotonic)
	replayed int64     // the latest leader time of any record applied
}

// observe notes rec's evidence; live: it was applied after the process
// started (not replayed).
func (c *clusterTime) observe(rec *jobs.Record, live bool, now time.Time) {
	t := recordTime(rec)
	if t == 0 {
		return
	}
	c.replayed = max(c.replayed, t)
	if live && (c.seen.IsZero() || t > c.at+int64(now.Sub(c.seen))) {
		c.at, c.seen = t, now
	}
}

// estimate returns the cluster's time now, and whether there is live
// evidence of it.
func (c *clusterTime) estimate(now time.Time) (int64, bool) {
	if c.seen.IsZero() {
		return c.replayed, false
	}
	return c.at + int64(now.Sub(c.seen)), true
}

// recordTime is the leader time rec was made at, or 0 if it does not say.
func recordTime(rec *jobs.Record) int64 {
	switch {
	case rec.Kind == jobs.RecPut:
		return rec.Created
	case rec.Kind == jobs.RecUpdate && rec.State == jobs.Reserved && rec.Deadline > 0:
		return rec.Deadline - int64(rec.TTR)
	case rec.Kind == jobs.RecUpdate && rec.State == jobs.Delayed && rec.Deadline > 0:
		return rec.Deadline - int64(rec.Delay)
	case rec.Kind == jobs.RecPause:
		return rec.Deadline - int64(rec.Delay)
	}
	return 0
}

// termClock is a new term's queue clock: the node's clock moved by offset.
type termClock struct {
	local  jobs.Clock
	offset int64
}

func (c termClock) Now() int64 { return c.local.Now() + c.offset }

// termClockFor chooses the clock of a term that starts now: local itself,
// or local moved onto the cluster's time (est, live), and how far off
// local was (0 when it is used as it is).
func termClockFor(local jobs.Clock, est int64, live bool) (jobs.Clock, time.Duration) {
	now := local.Now()
	switch {
	case !live:
		if now < est { // never before what the log already holds
			return termClock{local, est - now}, time.Duration(now - est)
		}
		return local, 0
	case now > est+int64(skewAhead) || now < est-int64(skewBehind):
		return termClock{local, est - now}, time.Duration(now - est)
	}
	return local, 0
}
