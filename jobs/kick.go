package jobs

// Kick moves up to n jobs of the used tube back to ready: buried jobs, oldest
// first, if the tube has any (even fewer than n); only otherwise delayed
// jobs, soonest first. It returns how many moved and the sequence number of
// the last record logged.
func (s *Session) Kick(n uint32) (kicked int, seq uint64, err error) {
	q := s.q
	t := s.use
	var w wakeups
	t.mu.Lock()
	now := q.clock.Now()
	fromBuried := t.buried.head != nil
	for ; uint32(kicked) < n; kicked++ {
		var j *job
		if fromBuried {
			j = t.buried.head
		} else {
			j = t.delayed.top()
		}
		if j == nil {
			break
		}
		last, e := q.kick(t, j, now, s.stripe(), &w)
		if e != nil {
			if kicked == 0 {
				err = e
			}
			break
		}
		seq = last
	}
	t.mu.Unlock()
	q.finish(&w)
	return kicked, seq, err
}

// KickJob moves one buried or delayed job, in any tube, to ready.
func (s *Session) KickJob(id uint64) (uint64, error) {
	q := s.q
	t, j := q.lockJob(id)
	if j == nil {
		return 0, ErrNotFound
	}
	var w wakeups
	if j.state != Buried && j.state != Delayed {
		t.mu.Unlock()
		return 0, ErrNotFound
	}
	seq, err := q.kick(t, j, q.clock.Now(), s.stripe(), &w)
	t.mu.Unlock()
	q.finish(&w)
	return seq, err
}

// kick logs and moves one buried or delayed job to ready. t.mu held.
func (q *Queue) kick(t *tube, j *job, now int64, st int, w *wakeups) (uint64, error) {
	rec := j.record(RecUpdate)
	rec.State, rec.Deadline, rec.Kicks = Ready, 0, j.ext.kicks+1
	seq, err := q.append(rec)
	if err != nil {
		return 0, err
	}
	q.unpark(t, j, st)
	j.ext.kicks++
	q.makeReady(t, j, now, st, w)
	return seq, nil
}
