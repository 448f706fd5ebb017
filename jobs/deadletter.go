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
	id, reserver := j.id, j.ext.reserver
	t.mu.Unlock()
	d := q.tubes.acquire([]byte(dl)) // the moved job's reference
	lockPair(t, d)
	still := q.stillLive(j, id) && j.state == Reserved && j.ext.reserver == reserver &&
		(owner == nil || reserver == owner) && (owner != nil || now > j.ext.deadline) &&
		t.exhausted(j) && t.pol.p.DeadLetter == dl
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
	reason := DeadReleased
	if timedOut {
		nx.timeouts++
		reason = DeadTimedOut
	} else {
		nx.releases++
	}
	nj.markDead(t, reason, now)
	nj.state = Ready
	if seq, err = q.append(nj.record(RecPut)); err != nil {
		unlockPair(t, d)
		q.releaseTube(d)
		recycle(nj)
		return 0, false, err
	}
	q.unreserve(t, j, st)
	j.state = 0
	q.jobs.swap(j, nj)
	recycle(j)
	t.pol.ctr.deadLettered.Add(1)
	d.totalJobs++
	var w wakeups
	q.makeReady(d, nj, now, st, &w)
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
