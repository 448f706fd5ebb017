package jobs

import (
	"math"
	"time"

	"github.com/stalkd/stalkd/jobs/internal/cron"
	"github.com/stalkd/stalkd/jobs/internal/wheel"
)

// This file holds a policy compiled for the queue (package policy checks
// it; here it gains its parsed schedules) and its schedules: recurring puts into its tube, each
// driven by a timer in the timing wheels (no goroutine). A schedule fires
// at each time of its cron expression; when it fires late (the queue was
// down, or Tick was not called), it puts one job, for the latest time due,
// and skips the earlier missed ones. The put carries the time it stands for
// (Record.Sched, SchedAt), so that a journal replay or a new leader knows
// the schedule's progress exactly: a time is put once, across restarts and
// failovers, as long as the put reached the journal.

// compiled is a validated policy as the queue applies it: its value, its
// reserve_rate bucket size and its parsed schedules. Immutable once built:
// tubes share it without a lock.
type compiled struct {
	p     Policy
	burst float64 // ceil(ReserveRate)
	crons []cron.Schedule
	// ctr are the counters of the tube name's policy: the one object every
	// compiled value of that policy shares, from set to removal.
	ctr *policyCounters
}

// compilePolicy validates p and compiles it.
func compilePolicy(p Policy) (*compiled, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	c := &compiled{p: p.Clone(), burst: math.Ceil(p.ReserveRate), ctr: &policyCounters{}}
	for _, s := range p.Schedule {
		cs, err := cron.ParseIn(s.Cron, s.TZ)
		if err != nil {
			return nil, err // not reached: Validate parsed it
		}
		c.crons = append(c.crons, cs)
	}
	return c, nil
}

// next returns the first time of schedule i strictly after t (Clock ns), or
// false if it has none.
func (c *compiled) next(i int, t int64) (int64, bool) {
	n := c.crons[i].Next(time.Unix(0, t).UTC())
	if n.IsZero() {
		return 0, false
	}
	return n.UnixNano(), true
}

// schedTimer is one schedule's timer. e and i never change; timer is
// guarded by the timer shard's lock.
type schedTimer struct {
	e     *policyEntry
	i     int
	timer wheel.Timer[*schedTimer]
}

// startSchedules arms e's schedules from their progress. setMu held.
func (q *Queue) startSchedules(e *policyEntry) {
	e.timers = make([]*schedTimer, len(e.fired))
	for i := range e.fired {
		st := &schedTimer{e: e, i: i}
		st.timer.Owner = st
		e.timers[i] = st
		if when, ok := e.c.next(i, e.fired[i]); ok {
			q.timers.scheduleSched(st, when)
		}
	}
}

// stopSchedules disarms e's schedules. setMu held.
func (q *Queue) stopSchedules(e *policyEntry) {
	for _, st := range e.timers {
		q.timers.cancelSched(st)
	}
	e.timers = nil
}

// schedTimer fires schedule st if it is still installed and due, then arms
// its next time.
func (q *Queue) schedTimer(st *schedTimer, now int64) {
	var w wakeups
	defer q.finish(&w) // wake functions run with no queue lock held
	ps := &q.pols
	ps.setMu.Lock()
	defer ps.setMu.Unlock()
	e, i := st.e, st.i
	if ps.byName[e.tube] != e || i >= len(e.timers) || e.timers[i] != st {
		return // replaced or removed since it came due
	}
	at, ok := e.c.next(i, e.fired[i])
	if !ok {
		return
	}
	if at <= now {
		at = e.c.latest(i, at, now)
		// A refused put (full tube, drain mode, journal error) is not
		// tried again: the time passes, as a cron job on a busy host would.
		_ = q.schedPut(e, i, at, &w)
		e.fired[i], e.ran[i] = at, true
		at, ok = e.c.next(i, at)
	}
	if ok {
		q.timers.scheduleSched(st, at)
	}
}

// latest returns the last time of schedule i that is at most now, given
// at, one of its times at most now.
func (c *compiled) latest(i int, at, now int64) int64 {
	if every := int64(c.crons[i].Every()); every > 0 {
		return at + (now-at)/every*every
	}
	for {
		n, ok := c.next(i, at)
		if !ok || n > now {
			return at
		}
		at = n
	}
}

// schedPut puts schedule i's job into e's tube, marked as the fire at at.
// Like Session.Put it is refused by drain mode, and max_ready's overflow
// decides as for a put (overflow.go). A waiter
// that wins the job is added to w, for the caller to finish once setMu is
// released. setMu held.
func (q *Queue) schedPut(e *policyEntry, i int, at int64, w *wakeups) error {
	if q.draining.Load() {
		return ErrDraining
	}
	s := e.c.p.Schedule[i]
	id := q.NextID()
	now := q.clock.Now()
	t := q.tubes.acquire([]byte(e.tube)) // the job's reference
	j := newJob()
	*j = job{id: id, tube: t, created: now, heapIdx: -1, pri: s.Priority,
		ttr: max(int64(s.TTR)*second, second), state: Ready}
	j.setBody([]byte(s.Body))
	mark := schedMark{sched: uint32(i + 1), at: at}
	t.mu.Lock()
	if t.pol != nil && t.full() {
		_, moved, err := q.overflow(t, j, mark, true, 0, w) // unlocks t
		if err == nil || err == ErrPutBuried {
			e.c.ctr.scheduledPuts.Add(1)
		}
		if moved {
			// The job went to the dead-letter tube without the mark:
			// record the schedule's progress in a policy record instead.
			fired := append([]int64(nil), e.fired...)
			fired[i] = at
			_, _ = q.append(Record{Kind: RecPolicy, Tube: e.tube, Policy: &PolicyRecord{Policy: e.c.p, Fired: fired}})
		}
		return err
	}
	rec := j.record(RecPut)
	rec.Sched, rec.SchedAt = mark.sched, mark.at
	if _, err := q.append(rec); err != nil {
		t.mu.Unlock()
		recycle(j)
		q.releaseTube(t)
		return err
	}
	q.jobs.put(j)
	q.stats.add(0, cHeldBytes, j.held())
	t.totalJobs++
	e.c.ctr.scheduledPuts.Add(1)
	q.stats.add(0, cTotalJobs, 1)
	q.makeReady(t, j, now, 0, w)
	t.mu.Unlock()
	return nil
}
