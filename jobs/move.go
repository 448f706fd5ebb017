package jobs

// This file holds the operators' moves of jobs between tubes: MoveJob (one
// job, what beanstalk console users do by hand) and the step both it and
// Redrive (redrive.go) take for each job, relocate.
//
// Jobs never change tube (every lock in the package relies on it), so a
// moved job is a new job in the target tube with the same id, body,
// priority, TTR and put time, exactly as max_reserves moves one to its
// dead-letter tube (deadletter.go): the index maps the id to the new job,
// the old one is recycled, and the journal gets a whole RecPut of the new
// job, which replaces the old one on replay, in a cluster's state and in
// its snapshots. A moved job starts with a reserve count of zero (so the
// target's max_reserves gives it a full set) and without a DeadLetter;
// its other counters (timeouts, releases, buries, kicks) stay. Moving is
// an operator's act, not a producer's put: the target's max_ready does
// not refuse it.

// MoveJob moves job id, ready, delayed or buried, to the tube called to
// (created if need be), keeping its state: a ready job is ready there (or
// handed at once to a worker waiting on it), a buried one is buried at the
// end of its buried list, a delayed one stays delayed until the same time.
// It returns the journal sequence number to wait for before acknowledging
// (Queue.Committed), and moved false when the job is already in that tube
// (nothing changes). Errors: ErrBadTubeName, ErrNotFound (no such job),
// ErrReservedJob (a worker holds it), or the journal's, in which case
// nothing changed. Safe for concurrent use.
func (q *Queue) MoveJob(id uint64, to string) (seq uint64, moved bool, err error) {
	if !validName([]byte(to)) {
		return 0, false, ErrBadTubeName
	}
	for {
		t, j := q.lockJob(id)
		if j == nil || j.state == 0 {
			if t != nil {
				t.mu.Unlock()
			}
			return 0, false, ErrNotFound
		}
		if j.state == Reserved {
			t.mu.Unlock()
			return 0, false, ErrReservedJob
		}
		if t.name == to {
			t.mu.Unlock()
			return 0, false, nil
		}
		t.mu.Unlock()
		d := q.tubes.acquire([]byte(to)) // the moved job's reference
		lockPair(t, d)
		if !q.stillLive(j, id) || j.state == 0 || j.state == Reserved {
			unlockPair(t, d) // it changed while the locks were swapped: look again
			q.releaseTube(d)
			continue
		}
		var w wakeups
		seq, err = q.relocate(t, d, j, j.state, q.clock.Now(), 0, &w)
		unlockPair(t, d)
		q.finish(&w)
		if err != nil {
			q.releaseTube(d)
			return 0, false, err
		}
		q.releaseTube(t) // the old job's reference
		return seq, true, nil
	}
}

// relocate moves job j of tube t (ready, delayed or buried) to tube d, both
// locked, d != t, as a new job (see the top of this file) that becomes
// state: Ready (through makeReady: a waiting worker may take it at once),
// Buried, or Delayed until j's deadline. It logs the new job's whole
// record first; on an error nothing changed. The caller moves the job's
// tube reference from t to d.
func (q *Queue) relocate(t, d *tube, j *job, state State, now int64, st int, w *wakeups) (uint64, error) {
	nj := newJob()
	*nj = job{id: j.id, tube: d, created: j.created, ttr: j.ttr, pri: j.pri, heapIdx: -1,
		body: j.body, bodyLen: j.bodyLen}
	if x := j.ext; x != nil {
		nx := nj.x()
		nx.delay = x.delay
		nx.timeouts, nx.releases, nx.buries, nx.kicks = x.timeouts, x.releases, x.buries, x.kicks
		if state == Delayed {
			nx.deadline = x.deadline
		}
	}
	nj.state = state
	seq, err := q.append(nj.record(RecPut))
	if err != nil {
		recycle(nj)
		return 0, err
	}
	if j.state == Ready {
		t.ready.remove(j)
		q.unready(t, j, st)
	} else {
		q.unpark(t, j, st)
	}
	j.state = 0
	q.jobs.swap(j, nj)
	recycle(j)
	d.totalJobs++
	switch state {
	case Buried:
		d.buried.pushBack(nj)
		q.stats.add(st, cBuried, 1)
	case Delayed:
		q.delay(d, nj, st)
	default:
		q.makeReady(d, nj, now, st, w)
	}
	return seq, nil
}
