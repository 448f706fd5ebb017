package jobs

import (
	"math"
	"runtime"
	"time"
)

// Reserve reserves the most urgent ready job of the watched tubes: lowest
// priority value, then lowest id, skipping paused tubes. When none is ready
// it returns ErrDeadlineSoon if a job the session holds is within a second of
// its TTR, ErrTimedOut if timeout is zero, and otherwise ErrWaiting: the
// session now waits (forever if timeout < 0), and the outcome - a job,
// ErrTimedOut or ErrDeadlineSoon - is announced through the session's wake
// function and collected with TakeOutcome. A waiting session must not call
// any other method but TakeOutcome and Close.
func (s *Session) Reserve(timeout time.Duration) (JobData, error) {
	q := s.q
	s.setWorker()
	now := q.clock.Now()
	tubes := s.watchSorted()
	for _, t := range tubes {
		t.mu.Lock()
	}
	soon := s.deadlineSoon(now)
	var best *tube
	anyReady := false
	for _, t := range tubes {
		top := t.ready.top()
		if top == nil {
			continue
		}
		anyReady = true
		if !t.held(now) && (best == nil || t.ready.less(top, best.ready.top())) {
			best = t
		}
	}
	var d JobData
	var err error
	switch {
	case soon && !anyReady:
		err = ErrDeadlineSoon
	case best != nil:
		j := best.ready.pop()
		best.spend()
		q.unready(best, j, s.stripe())
		q.reserveFor(s, j, now, s.stripe(), false)
		best.waiters.servedAtOnce()
		d = j.data()
	case soon: // the only ready jobs sit in paused tubes
		err = ErrDeadlineSoon
	case timeout == 0:
		err = ErrTimedOut
	default:
		s.startWait(now, timeout)
		err = ErrWaiting
	}
	if best == nil && anyReady {
		q.rateLimited(tubes, now, err == ErrWaiting)
	}
	for _, t := range tubes {
		t.mu.Unlock()
	}
	return d, err
}

// TakeOutcome returns the outcome of a wait started by Reserve: the reserved
// job, or ErrTimedOut, or ErrDeadlineSoon. It returns ErrWaiting while the
// outcome is not ready, and ends the wait otherwise.
func (s *Session) TakeOutcome() (JobData, error) {
	w := s.w
	if w == nil {
		return JobData{}, ErrWaiting
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !w.hasOutcome {
		return JobData{}, ErrWaiting
	}
	d, err := w.outcome, w.outcomeErr
	w.outcome, w.outcomeErr, w.hasOutcome = JobData{}, nil, false
	s.wstate.Store(w.waits << waitShift) // idle
	return d, err
}

// Waiting reports whether a Reserve is pending.
func (s *Session) Waiting() bool { return s.wstate.Load()&stateMask != idle }

// ReserveJob reserves the job id whatever its tube, if it is ready, delayed
// or buried. It ignores pauses and never answers ErrDeadlineSoon.
func (s *Session) ReserveJob(id uint64) (JobData, uint64, error) {
	q := s.q
	t, j := q.lockJob(id)
	if j == nil {
		return JobData{}, 0, ErrNotFound
	}
	defer t.mu.Unlock()
	var seq uint64
	switch j.state {
	case Ready:
		t.ready.remove(j)
		q.unready(t, j, s.stripe())
	case Delayed, Buried:
		// Log it as ready, so that a restart does not bring it back buried
		// or delayed while a worker has it.
		rec := j.record(RecUpdate)
		rec.State, rec.Deadline = Ready, 0
		var err error
		if seq, err = q.append(rec); err != nil {
			return JobData{}, 0, err
		}
		q.unpark(t, j, s.stripe())
	default:
		return JobData{}, 0, ErrNotFound
	}
	q.reserveFor(s, j, q.clock.Now(), s.stripe(), false)
	s.setWorker() // only a successful reserve-job makes a worker
	return j.data(), seq, nil
}

// deadlineSoon reports whether a job the session holds is in the last
// second of its TTR.
func (s *Session) deadlineSoon(now int64) bool {
	s.mu.Lock()
	soonest, ok := s.soonest()
	s.mu.Unlock()
	return ok && now >= soonest-second
}

// soonest returns the earliest TTR deadline of the session's jobs. s.mu held.
func (s *Session) soonest() (int64, bool) {
	if s.reserved.head == nil {
		return 0, false
	}
	min := int64(math.MaxInt64)
	for j := s.reserved.head; j != nil; j = j.ext.next {
		if j.ext.deadline < min {
			min = j.ext.deadline
		}
	}
	return min, true
}

// startWait registers the session as a waiter on every watched tube and arms
// its timer for the timeout or the DEADLINE_SOON margin, whichever is first.
// Every watched tube lock is held.
func (s *Session) startWait(now int64, timeout time.Duration) {
	q := s.q
	w := s.wait()
	w.tubes = append(w.tubes[:0], s.watchSorted()...)
	for _, t := range w.tubes {
		t.waiters.add(s)
	}
	w.waits++
	s.wstate.Store(w.waits<<waitShift | waiting)
	q.stats.add(s.stripe(), cWaiting, 1)
	when := int64(math.MaxInt64)
	if timeout > 0 {
		when = now + int64(timeout)
	}
	s.mu.Lock()
	soonest, ok := s.soonest()
	w.soon = ok && soonest-second <= when
	if w.soon {
		when = soonest - second
	}
	s.mu.Unlock()
	if when != math.MaxInt64 {
		q.timers.scheduleSession(s, when, w.waits)
	}
}

// unregisterWait removes the session from the waiter sets of the tubes it
// waited on, except from (which the caller holds or already took it from).
// Only the goroutine that won the wait (its CAS away from waiting) calls it.
func (s *Session) unregisterWait(from *tube) {
	for _, t := range s.w.tubes {
		if t == from {
			continue
		}
		t.mu.Lock()
		t.waiters.remove(s)
		t.mu.Unlock()
	}
}

// sessionTimer ends wait number wait, whose timeout or DEADLINE_SOON margin
// came, unless that wait is already over: the timer may have been collected
// just before a job ended the wait and the owner started the next one.
func (q *Queue) sessionTimer(s *Session, wait uint64) {
	if !s.claimWait(wait, claimed) {
		return
	}
	q.stats.add(0, cWaiting, -1)
	s.unregisterWait(nil)
	w := s.w
	s.mu.Lock()
	w.outcome, w.outcomeErr = JobData{}, ErrTimedOut
	if w.soon {
		// Decided when the timer was armed, not now: a late tick may
		// already have timed the job out, and a timely one would have
		// answered DEADLINE_SOON.
		w.outcomeErr = ErrDeadlineSoon
	}
	s.mu.Unlock()
	s.deliver()
}

// deliver publishes the outcome stored in the session and wakes its owner.
// Only the winner of the wait calls it.
func (s *Session) deliver() {
	s.mu.Lock()
	ok := !s.isClosed
	s.w.hasOutcome = ok
	s.mu.Unlock()
	if ok && s.wake != nil {
		s.wake.Wake()
	}
}

// CancelWait ends a pending Reserve without closing the session (its client
// half-closed, and the protocol answers what it sent before). It returns the
// job if one was already handed over, otherwise ErrTimedOut. If another
// goroutine has just won the wait, CancelWait lets it publish its outcome -
// a few lock hand-offs at most - and returns that.
func (s *Session) CancelWait() (JobData, error) {
	q := s.q
	if s.claim(claimed) {
		q.stats.add(s.stripe(), cWaiting, -1)
		s.unregisterWait(nil)
		q.timers.cancelSession(s)
		w := s.w
		s.mu.Lock()
		w.outcome, w.outcomeErr, w.hasOutcome = JobData{}, ErrTimedOut, true
		s.mu.Unlock()
		return s.TakeOutcome()
	}
	for {
		d, err := s.TakeOutcome()
		if err != ErrWaiting {
			return d, err
		}
		if !s.Waiting() {
			return JobData{}, ErrTimedOut
		}
		runtime.Gosched()
	}
}
