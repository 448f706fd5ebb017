package jobs

// This file holds max_reserves: a reserved job that has used up its tube's
// reserves is not made ready again when it is released or its TTR runs out,
// but buried, or moved to the dead-letter tube.
//
// Jobs never change tube (every lock in the package relies on it), so a job
// moving to the dead-letter tube becomes a new job there with the same id,
// body, priority, TTR and put time; the index maps the id to the new job,
// and the old one is recycled like a deleted job. The journal gets a whole
// RecPut of the new job, which replaces the old one on replay. The new job
// remembers where it came from, why and when (a DeadLetter, deadreason.go),
// in that same record; a redrive (move.go) sends it back.

// maxReservesRule is max_reserves' rule: a reserved job that has used up
// its reserves and is released or times out is retired instead.
type maxReservesRule struct{}

func compileMaxReserves(c *compiled) any {
	if c.p.MaxReserves == 0 {
		return nil
	}
	return maxReservesRule{}
}

func (maxReservesRule) requeue(rc *requeueCall) bool {
	if (rc.why != byRelease && rc.why != byTimeout) || !rc.t.exhausted(rc.j) {
		return false
	}
	rc.seq, rc.retry, rc.err = rc.q.retire(rc.t, rc.j, rc.owner, rc.why == byTimeout, rc.now, rc.st)
	return true
}

// exhausted reports whether reserved job j of t has used up the reserves
// its tube's policy allows. t.mu held.
func (t *tube) exhausted(j *job) bool {
	return t.pol != nil && t.pol.p.MaxReserves > 0 && j.ext.reserves >= t.pol.p.MaxReserves
}

// countsReserves reports whether t's policy limits reserves: its jobs'
// reserve counts must then reach the journal even when a reservation ends
// without a record of its own (a TTR running out, a session closing).
// t.mu held.
func (t *tube) countsReserves() bool { return t.pol != nil && t.pol.p.MaxReserves > 0 }

// retire buries or dead-letters reserved job j of t, which is exhausted,
// instead of releasing it (timedOut: instead of timing it out). It is
// called with t.mu held and returns with it released. owner is the session
// the job must still be reserved by (nil: the TTR timer, which needs the
// TTR to have run out at now). retry reports that the job or the policy
// changed while the locks were swapped; the caller starts again.
func (q *Queue) retire(t *tube, j *job, owner *Session, timedOut bool, now int64, st int) (seq uint64, retry bool, err error) {
	if timedOut {
		defer q.stats.add(st, cTimeouts, 1) // once done: a retry is not counted twice
	}
	dl := t.pol.p.DeadLetter
	if dl == "" {
		defer t.mu.Unlock()
		rec := j.record(RecUpdate)
		rec.State, rec.Buries = Buried, rec.Buries+1
		if timedOut {
			rec.Timeouts++
		} else {
			rec.Releases++
		}
		if seq, err = q.append(rec); err != nil {
			return 0, false, err
		}
		q.unreserve(t, j, st)
		x := j.ext
		x.buries, x.timeouts, x.releases = rec.Buries, rec.Timeouts, rec.Releases
		j.state = Buried
		t.buried.pushBack(j)
		q.stats.add(st, cBuried, 1)
		t.pol.ctr.deadLettered.Add(1)
		return seq, false, nil
	}
	m := reservedMove{owner: owner, now: now, st: st, to: dl, reason: DeadReleased}
	if timedOut {
		m.reason = DeadTimedOut
	}
	m.still = func(t *tube, j *job) bool { return t.exhausted(j) && t.pol.p.DeadLetter == dl }
	m.done = func(c *compiled) { c.ctr.deadLettered.Add(1) }
	return q.moveReserved(t, j, m)
}

// reservedMove says how moveReserved moves a reserved job to a
// dead-letter tube.
type reservedMove struct {
	owner  *Session // the session it must still be reserved by; nil: the TTR timer
	now    int64
	st     int
	to     string     // the dead-letter tube
	reason DeadReason // why; DeadReleased and DeadTimedOut also count the release or timeout
	// still reports, with both tubes locked again, whether the rule that
	// moves the job still holds; done counts the move in the source's
	// policy.
	still func(t *tube, j *job) bool
	done  func(c *compiled)
}

// moveReserved moves reserved job j of t to the dead-letter tube m.to, as
// a new job there with the same id (see the top of this file), ready, and
// marked with m.reason. It is called with t.mu held and returns with it
// released; retry reports that the job or the policy changed while the
// locks were swapped (the caller starts again).
func (q *Queue) moveReserved(t *tube, j *job, m reservedMove) (seq uint64, retry bool, err error) {
	id, reserver := j.id, j.ext.reserver
	t.mu.Unlock()
	d := q.tubes.acquire([]byte(m.to)) // the moved job's reference
	lockPair(t, d)
	still := q.stillLive(j, id) && j.state == Reserved && j.ext.reserver == reserver &&
		(m.owner == nil || reserver == m.owner) && (m.owner != nil || m.now > j.ext.deadline) &&
		t.pol != nil && m.still(t, j)
	if !still {
		unlockPair(t, d)
		q.releaseTube(d)
		return 0, true, nil
	}
	nj := newJob()
	*nj = job{id: id, tube: d, created: j.created, ttr: j.ttr, pri: j.pri, heapIdx: -1,
		body: j.body, bodyLen: j.bodyLen}
	x, nx := j.ext, nj.x()
	nx.timeouts, nx.releases, nx.buries, nx.kicks = x.timeouts, x.releases, x.buries, x.kicks
	switch m.reason {
	case DeadTimedOut:
		nx.timeouts++
	case DeadReleased:
		nx.releases++
	}
	nj.markDead(t, m.reason, m.now)
	nj.state = Ready
	if seq, err = q.append(nj.record(RecPut)); err != nil {
		unlockPair(t, d)
		q.releaseTube(d)
		recycle(nj)
		return 0, false, err
	}
	q.unreserve(t, j, m.st)
	j.state = 0
	q.jobs.swap(j, nj)
	recycle(j)
	m.done(t.pol)
	d.totalJobs++
	var w wakeups
	q.makeReady(d, nj, m.now, m.st, &w)
	q.joined(d, nj)
	unlockPair(t, d)
	q.releaseTube(t) // the old job's reference
	q.finish(&w)
	return seq, false, nil
}

// lockPair locks two different tubes in creation order.
func lockPair(a, b *tube) {
	if a.serial > b.serial {
		a, b = b, a
	}
	a.mu.Lock()
	b.mu.Lock()
}

func unlockPair(a, b *tube) {
	a.mu.Unlock()
	b.mu.Unlock()
}
