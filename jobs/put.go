package jobs

import "time"

// Put adds a job to the used tube. It returns the job's id and the journal
// sequence number to wait for before acknowledging (see Queue.Committed).
// With r.Delay > 0 the job is delayed; otherwise it is ready, or handed at
// once to a session waiting on the tube. In drain mode it fails with
// ErrDraining; the id is spent either way. A tube at its policy's
// max_ready overflows (overflow.go): ErrQueueFull (nothing stored),
// ErrPutBuried (the job is stored, buried: id and seq are valid) or nil
// with the job stored in the dead-letter tube. The policy's rules run
// through the tube's hook (hook.go).
func (s *Session) Put(r PutRequest) (id, seq uint64, err error) {
	q := s.q
	id = r.ID
	if id == 0 {
		id = q.NextID()
	}
	s.SetProducer()
	if q.draining.Load() {
		return id, 0, ErrDraining
	}
	body := r.Owned
	if body == nil {
		body = append(make([]byte, 0, len(r.Body)), r.Body...)
	}
	now := q.clock.Now()
	t := s.use
	j := newJob()
	*j = job{
		id: id, tube: t, created: now, heapIdx: -1,
		pri: r.Pri, ttr: max(int64(r.TTR), second),
	}
	j.setBody(body)
	if r.Delay > 0 {
		x := j.x()
		x.delay = int64(r.Delay)
		j.state, x.deadline = Delayed, now+int64(r.Delay)
	} else {
		j.state = Ready
	}
	t.mu.Lock()
	if t.pol != nil {
		return q.putPolicied(t, j, now, s.stripe())
	}
	var w wakeups
	if seq, err = q.logJob(j, RecPut); err != nil {
		t.mu.Unlock()
		recycle(j)
		return id, 0, err
	}
	t.refs.Add(1)
	q.insert(t, j, now, s.stripe(), &w)
	t.mu.Unlock()
	q.finish(&w)
	return id, seq, nil
}

// delay puts j (state Delayed, deadline set) on t's delay heap and arms its
// timer. t.mu held.
func (q *Queue) delay(t *tube, j *job, st int) {
	t.delayed.push(j)
	q.stats.add(st, cDelayed, 1)
	q.timers.scheduleJob(j, j.ext.deadline)
}

// Delete removes a job: one reserved by this session, or one that is ready,
// delayed or buried in any tube. A job reserved by another session is
// ErrNotFound.
func (s *Session) Delete(id uint64) (uint64, error) {
	q := s.q
	t, j := q.lockJob(id)
	if j == nil {
		return 0, ErrNotFound
	}
	if j.state == 0 || (j.state == Reserved && j.ext.reserver != s && j.ext.reserver != nil) {
		t.mu.Unlock()
		return 0, ErrNotFound
	}
	seq, err := q.logJob(j, RecDelete)
	if err != nil {
		t.mu.Unlock()
		return 0, err
	}
	switch j.state {
	case Reserved:
		q.unreserve(t, j, s.stripe())
	case Ready:
		t.ready.remove(j)
		q.unready(t, j, s.stripe())
	default:
		q.unpark(t, j, s.stripe())
	}
	j.state = 0
	q.stats.add(s.stripe(), cHeldBytes, -j.held())
	t.deletes++
	q.jobs.del(id)
	recycle(j)
	t.mu.Unlock()
	q.releaseTube(t)
	return seq, nil
}

// Release gives back a job this session reserved, with a new priority, to
// ready or (delay > 0) to delayed.
func (s *Session) Release(id uint64, pri uint32, delay time.Duration) (uint64, error) {
	q := s.q
	t, j := s.own(id)
	if j == nil {
		return 0, ErrNotFound
	}
	now := q.clock.Now()
	if t.pol != nil {
		rc, took := t.pol.runRequeue(requeueCall{q: q, t: t, j: j, owner: s, why: byRelease, now: now, st: s.stripe(), delay: int64(delay)})
		if took {
			if rc.retry {
				return s.Release(id, pri, delay)
			}
			return rc.seq, rc.err
		}
		delay = time.Duration(rc.delay)
	}
	rec := j.record(RecUpdate)
	rec.Pri, rec.Delay, rec.Releases = pri, delay, j.ext.releases+1
	rec.State, rec.Deadline = Ready, 0
	if delay > 0 {
		rec.State, rec.Deadline = Delayed, now+int64(delay)
	}
	seq, err := q.append(rec)
	if err != nil {
		t.mu.Unlock()
		return 0, err
	}
	q.unreserve(t, j, s.stripe())
	x := j.ext
	j.pri, x.delay = pri, int64(delay)
	x.releases++
	var w wakeups
	if delay > 0 {
		j.state, x.deadline = Delayed, rec.Deadline
		q.delay(t, j, s.stripe())
	} else {
		q.makeReady(t, j, now, s.stripe(), &w)
	}
	t.mu.Unlock()
	q.finish(&w)
	return seq, nil
}

// Bury moves a job this session reserved to the end of its tube's buried
// list, with a new priority.
func (s *Session) Bury(id uint64, pri uint32) (uint64, error) {
	q := s.q
	t, j := s.own(id)
	if j == nil {
		return 0, ErrNotFound
	}
	if t.pol != nil {
		rc, took := t.pol.runRequeue(requeueCall{q: s.q, t: t, j: j, owner: s, why: byBury, now: s.q.clock.Now(), st: s.stripe()})
		if took {
			if rc.retry {
				return s.Bury(id, pri)
			}
			return rc.seq, rc.err
		}
	}
	defer t.mu.Unlock()
	rec := j.record(RecUpdate)
	rec.State, rec.Pri, rec.Buries = Buried, pri, j.ext.buries+1
	seq, err := q.append(rec)
	if err != nil {
		return 0, err
	}
	q.unreserve(t, j, s.stripe())
	j.pri = pri
	j.ext.buries++
	j.state = Buried
	t.buried.pushBack(j)
	q.stats.add(s.stripe(), cBuried, 1)
	return seq, nil
}

// Touch gives a job this session reserved a fresh TTR.
func (s *Session) Touch(id uint64) error {
	t, j := s.own(id)
	if j == nil {
		return ErrNotFound
	}
	j.ext.deadline = s.q.clock.Now() + j.ttr
	if s.q.replicated {
		s.wait().lastSeq.Store(s.q.logReserved(j))
	}
	s.q.timers.scheduleJob(j, j.ext.deadline+1)
	t.mu.Unlock()
	return nil
}

// own finds a job reserved by this session and returns it with its tube
// locked, or nil with nothing locked.
func (s *Session) own(id uint64) (*tube, *job) {
	t, j := s.q.lockJob(id)
	if j == nil {
		return nil, nil
	}
	if j.state == Reserved && j.ext.reserver == nil {
		s.adopt(j) // an orphan (restore.go)
	}
	if j.state != Reserved || j.ext.reserver != s {
		t.mu.Unlock()
		return nil, nil
	}
	return t, j
}
