package jobs

import (
	"errors"
	"time"
)

// Stats returns the queue's counters. Each is read atomically, the set is not
// a snapshot: under load the figures may disagree by a few operations.
func (q *Queue) Stats() Stats {
	c := &q.stats
	st := Stats{
		Urgent:           c.sum(cUrgent),
		Ready:            c.sum(cReady),
		Reserved:         c.sum(cReserved),
		Delayed:          c.sum(cDelayed),
		Buried:           c.sum(cBuried),
		JobTimeouts:      uint64(c.sum(cTimeouts)),
		TotalJobs:        uint64(c.sum(cTotalJobs)),
		Tubes:            q.tubes.count(),
		Connections:      c.sum(cConnections),
		Producers:        c.sum(cProducers),
		Workers:          c.sum(cWorkers),
		Waiting:          c.sum(cWaiting),
		TotalConnections: uint64(c.sum(cTotalConnections)),
		Draining:         q.draining.Load(),
	}
	for i := range st.Cmds {
		st.Cmds[i] = uint64(c.sum(counter(i)))
	}
	return st
}

// StatsTube returns the statistics of the tube called name.
func (q *Queue) StatsTube(name []byte) (TubeStats, error) {
	if !validName(name) {
		return TubeStats{}, ErrBadTubeName
	}
	t := q.tubes.find(name)
	if t == nil {
		return TubeStats{}, ErrNotFound
	}
	now := q.clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	ts := TubeStats{
		Name:   t.name,
		Urgent: t.urgent, Ready: int64(t.ready.len()), Reserved: t.reserved,
		Delayed: int64(t.delayed.len()), Buried: int64(t.buried.n),
		TotalJobs: t.totalJobs,
		Using:     t.using, Watching: t.watching, Waiting: int64(len(t.waiters.items)),
		Deletes: t.deletes, Pauses: t.pauses,
	}
	if t.pause > 0 {
		ts.Pause = time.Duration(t.pause)
		ts.PauseLeft = time.Duration(t.unpauseAt - now)
	}
	return ts, nil
}

// StatsJob returns the statistics of job id.
func (q *Queue) StatsJob(id uint64) (JobStats, error) {
	j := q.jobs.get(id)
	if j == nil {
		return JobStats{}, ErrNotFound
	}
	now := q.clock.Now()
	t := j.tube
	t.mu.Lock()
	if j.state == 0 {
		t.mu.Unlock()
		return JobStats{}, ErrNotFound
	}
	js := JobStats{
		ID: j.id, Tube: t.name, State: j.state, Pri: j.pri,
		Age: time.Duration(now - j.created), Delay: time.Duration(j.delay), TTR: time.Duration(j.ttr),
		Reserves: j.reserves, Timeouts: j.timeouts, Releases: j.releases, Buries: j.buries, Kicks: j.kicks,
	}
	if j.state == Reserved || j.state == Delayed {
		js.TimeLeft = time.Duration(j.deadline - now)
	}
	t.mu.Unlock()
	if q.journal != nil {
		js.File = q.journal.File(id)
	}
	return js, nil
}

// ListTubes appends the names of all tubes to dst, in listing order.
func (q *Queue) ListTubes(dst []string) []string { return q.tubes.names(dst) }

// PauseTube stops reserve from taking jobs of the tube called name for d. A
// zero d pauses for one nanosecond (waiters are served on the next tick).
// Pauses are not persisted, and vanish with the tube.
func (q *Queue) PauseTube(name []byte, d time.Duration) error {
	if !validName(name) {
		return ErrBadTubeName
	}
	t := q.tubes.find(name)
	if t == nil {
		return ErrNotFound
	}
	if d <= 0 {
		d = 1
	}
	t.mu.Lock()
	t.pause = int64(d)
	t.unpauseAt = q.clock.Now() + int64(d)
	t.pauses++
	q.timers.scheduleTube(t, t.unpauseAt)
	t.mu.Unlock()
	return nil
}

// Restore adds a job read back from the journal at startup, before any
// session exists. It does not log. A reserved job comes back ready; a delayed
// one whose deadline has passed comes back ready. Jobs should be restored in
// the order they were first put, so that buried lists keep their order.
func (q *Queue) Restore(rec Record) error {
	if rec.Kind != RecPut || rec.ID == 0 || !validName([]byte(rec.Tube)) {
		return errors.New("jobs: restore needs a whole record with an id and a valid tube")
	}
	if !framed(rec.Body) {
		return ErrBadBody
	}
	if q.jobs.get(rec.ID) != nil {
		return errors.New("jobs: restore of a job that exists")
	}
	t := q.tubes.acquire([]byte(rec.Tube)) // the job's reference
	j := &job{
		id: rec.ID, tube: t, body: rec.Body, created: rec.Created, heapIdx: -1,
		pri: rec.Pri, delay: int64(rec.Delay), ttr: max(int64(rec.TTR), second),
		reserves: rec.Reserves, timeouts: rec.Timeouts, releases: rec.Releases,
		buries: rec.Buries, kicks: rec.Kicks,
	}
	j.timer.Owner = j
	now := q.clock.Now()
	var w wakeups
	t.mu.Lock()
	q.jobs.put(j)
	switch {
	case rec.State == Buried:
		j.state = Buried
		t.buried.pushBack(j)
		q.stats.add(0, cBuried, 1)
	case rec.State == Delayed && rec.Deadline > now:
		j.state, j.deadline = Delayed, rec.Deadline
		q.delay(t, j, 0)
	default:
		q.makeReady(t, j, now, 0, &w)
	}
	t.mu.Unlock()
	q.finish(&w)
	q.EnsureNextID(rec.ID + 1)
	return nil
}

// Rewrite appends a whole record of job id with its current state to the
// journal (compaction moves live jobs forward this way). ok is false if the
// job no longer exists or the journal refused the record.
func (q *Queue) Rewrite(id uint64) (seq uint64, ok bool) {
	j := q.jobs.get(id)
	if j == nil {
		return 0, false
	}
	t := j.tube
	t.mu.Lock()
	defer t.mu.Unlock()
	if j.state == 0 {
		return 0, false
	}
	seq, err := q.append(j.record(RecPut))
	return seq, err == nil
}
