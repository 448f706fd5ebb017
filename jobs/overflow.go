package jobs

import "github.com/stalkd/stalkd/jobs/policy"

// This file holds max_ready's overflow: what becomes of a new job (a
// client's put or a schedule's) when its tube already holds max_ready
// ready or delayed jobs. The policy's Overflow decides, and each outcome
// is one the protocol already has for put:
//
//	reject       nothing is stored, ErrQueueFull      (OUT_OF_MEMORY)
//	bury         stored buried in its tube, ErrPutBuried (BURIED <id>)
//	dead_letter  stored in the dead-letter tube, nil  (INSERTED <id>)
//
// A dead-letter tube that is itself at its own max_ready refuses the job
// (ErrQueueFull): overflow goes one hop, never on to the dead-letter
// tube's own overflow, so no chain of tubes can loop or fan out.

// schedMark is the schedule mark of a scheduled put (Record.Sched,
// SchedAt); zero for a client's put.
type schedMark struct {
	sched uint32
	at    int64
}

// overflow disposes of new job j, built for tube t and not yet stored,
// when t is at its max_ready. t.mu is held on entry and released on
// return. ref says the caller holds a tube reference for the job (a
// scheduled put acquires one); overflow keeps it when the job stays in t
// and drops it otherwise. On ErrQueueFull or a journal error j is
// recycled. moved reports that the job went to another tube, where its
// schedule mark cannot travel (the caller records the schedule's progress
// another way).
func (q *Queue) overflow(t *tube, j *job, m schedMark, ref bool, st int, w *wakeups) (seq uint64, moved bool, err error) {
	c := t.pol
	switch c.p.Overflow {
	case policy.OverflowBury:
		if seq, err = q.putBuried(t, j, m, st); err != nil {
			t.mu.Unlock()
			recycle(j)
			if ref {
				q.releaseTube(t)
			}
			return 0, false, err
		}
		if !ref {
			t.refs.Add(1) // the job's reference
		}
		c.ctr.overflowed.Add(1)
		t.mu.Unlock()
		return seq, false, ErrPutBuried
	case policy.OverflowDeadLetter:
		dl := c.p.DeadLetter
		t.mu.Unlock()
		if ref {
			defer q.releaseTube(t) // the job goes elsewhere
		}
		seq, err = q.overflowDeadLetter(c, j, dl, st, w)
		return seq, err == nil, err
	}
	c.ctr.refusedFull.Add(1)
	t.mu.Unlock()
	recycle(j)
	if ref {
		q.releaseTube(t)
	}
	return 0, false, ErrQueueFull
}

// putBuried stores new job j in t, buried (its buries count is 1, as
// after a bury), logging it whole with mark m. t.mu held.
func (q *Queue) putBuried(t *tube, j *job, m schedMark, st int) (uint64, error) {
	x := j.x()
	j.state, x.deadline, x.buries = Buried, 0, 1
	rec := j.record(RecPut)
	rec.Sched, rec.SchedAt = m.sched, m.at
	seq, err := q.append(rec)
	if err != nil {
		return 0, err
	}
	q.jobs.put(j)
	q.stats.add(st, cHeldBytes, j.held())
	t.totalJobs++
	q.stats.add(st, cTotalJobs, 1)
	t.buried.pushBack(j)
	q.stats.add(st, cBuried, 1)
	return seq, nil
}

// overflowDeadLetter puts new job j, which overflowed a tube whose policy
// c sends it to dead-letter tube dl, into dl instead: ready or delayed as
// the put asked, under its id. A dl at its own max_ready refuses it
// (ErrQueueFull, counted in c's RefusedFull). No tube lock is held on
// entry. This is the one place an overflowing job becomes a dead letter:
// it remembers the tube it was put to, reason DeadOverflow and the time
// (deadreason.go), in its put record too.
func (q *Queue) overflowDeadLetter(c *compiled, j *job, dl string, st int, w *wakeups) (uint64, error) {
	d := q.tubes.acquire([]byte(dl)) // the job's reference
	d.mu.Lock()
	if d.pol != nil && d.full() {
		d.mu.Unlock()
		q.releaseTube(d)
		c.ctr.refusedFull.Add(1)
		recycle(j)
		return 0, ErrQueueFull
	}
	j.markDead(j.tube, DeadOverflow, q.clock.Now())
	j.tube = d
	seq, err := q.logJob(j, RecPut)
	if err != nil {
		d.mu.Unlock()
		q.releaseTube(d)
		recycle(j)
		return 0, err
	}
	q.jobs.put(j)
	q.stats.add(st, cHeldBytes, j.held())
	d.totalJobs++
	q.stats.add(st, cTotalJobs, 1)
	if j.state == Delayed {
		q.delay(d, j, st)
	} else {
		q.makeReady(d, j, q.clock.Now(), st, w)
	}
	c.ctr.overflowed.Add(1)
	d.mu.Unlock()
	return seq, nil
}
