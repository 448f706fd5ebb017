package jobs

// This file holds the moves every state change shares: a job entering and
// leaving the ready heap, a job handed to a waiting session, and the wake-ups
// collected under a tube lock and fired after it is released.

// makeReady makes j ready in t: it goes straight to a waiting session if the
// tube is not paused and someone waits, else onto the ready heap. j has
// already been taken off whatever structure held it. t.mu held.
func (q *Queue) makeReady(t *tube, j *job, now int64, st int, w *wakeups) {
	j.state = Ready
	if j.ext != nil {
		j.ext.reserver = nil
	}
	if !t.held(now) && q.handOff(t, j, now, st, w) {
		t.spend()
		return
	}
	t.ready.push(j)
	if j.pri < UrgentPri {
		t.urgent++
		q.stats.add(st, cUrgent, 1)
	}
	q.stats.add(st, cReady, 1)
	if t.pol != nil {
		q.armForToken(t, now)
	}
}

// unready accounts for j having been popped or removed from t's ready heap.
func (q *Queue) unready(t *tube, j *job, st int) {
	if j.pri < UrgentPri {
		t.urgent--
		q.stats.add(st, cUrgent, -1)
	}
	q.stats.add(st, cReady, -1)
}

// unpark takes a delayed or buried job off its structure. t.mu held.
func (q *Queue) unpark(t *tube, j *job, st int) {
	if j.state == Delayed {
		t.delayed.remove(j)
		q.timers.cancelJob(j)
		q.stats.add(st, cDelayed, -1)
	} else {
		t.buried.remove(j)
		q.stats.add(st, cBuried, -1)
	}
}

// handOff gives j to the next waiter of t, in the reference's round-robin
// order. Exactly-once: a waiter is claimed by a compare-and-swap, so a
// timeout or another tube cannot also claim it. t.mu held.
func (q *Queue) handOff(t *tube, j *job, now int64, st int, w *wakeups) bool {
	for {
		s := t.waiters.take()
		if s == nil {
			return false
		}
		if !s.claim(claimed) {
			continue // claimed elsewhere; its claimer cleans up
		}
		q.stats.add(st, cWaiting, -1)
		ok := q.reserveFor(s, j, now, st, true)
		w.add(s, t)
		if ok {
			return true
		}
	}
}

// reserveFor makes j reserved by s with a fresh TTR. For a waiter the job
// also becomes the session's pending outcome. It fails only if s is closing.
// t.mu held (t = j.tube).
func (q *Queue) reserveFor(s *Session, j *job, now int64, st int, waiter bool) bool {
	s.mu.Lock()
	if s.isClosed {
		s.mu.Unlock()
		return false
	}
	x := j.x()
	j.state = Reserved
	x.reserver = s
	x.deadline = now + j.ttr
	x.reserves++
	s.reserved.pushBack(j)
	if waiter { // s won its wait, so s.w is set (see Session.w)
		s.w.outcome, s.w.outcomeErr = j.data(), nil
	}
	if q.replicated {
		// A waiter has s.w; otherwise the caller is the owner.
		s.wait().lastSeq.Store(q.logReserved(j))
	}
	s.mu.Unlock()
	j.tube.reserved++
	q.stats.add(st, cReserved, 1)
	q.timers.scheduleJob(j, x.deadline+1) // a TTR ends when now > deadline
	return true
}

// unreserve takes j from its reserver. t.mu held.
func (q *Queue) unreserve(t *tube, j *job, st int) {
	x := j.ext
	if s := x.reserver; s != nil { // nil: an orphan (replicated.go)
		s.mu.Lock()
		s.reserved.remove(j)
		s.mu.Unlock()
	}
	x.reserver = nil
	t.reserved--
	q.stats.add(st, cReserved, -1)
	q.timers.cancelJob(j)
}

// wakeups collects the sessions whose waits were won under a tube lock, to
// be finished (unregistered elsewhere, woken) once the lock is released:
// callbacks never run under a queue lock.
type wakeups struct {
	n      int
	inline [2]wakeup
	more   []wakeup
}

type wakeup struct {
	s    *Session
	from *tube
}

func (w *wakeups) add(s *Session, from *tube) {
	if w.n < len(w.inline) {
		w.inline[w.n] = wakeup{s, from}
		w.n++
		return
	}
	w.more = append(w.more, wakeup{s, from})
}

// finish completes each won wait: the session leaves the waiter sets of its
// other tubes, its timer is cancelled, and only then is its owner woken, so
// that its next Reserve cannot race with this cleanup. No lock held.
func (q *Queue) finish(w *wakeups) {
	for i := 0; i < w.n; i++ {
		q.finishOne(w.inline[i])
	}
	for _, x := range w.more {
		q.finishOne(x)
	}
}

func (q *Queue) finishOne(x wakeup) {
	x.s.unregisterWait(x.from)
	q.timers.cancelSession(x.s)
	x.s.deliver()
}
