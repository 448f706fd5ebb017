package jobs

import "errors"

// Restore and Rewrite are the journal's way in: replay at startup, and
// compaction moving live jobs forward.

// Restore adds a job read back from the journal at startup, before any
// session exists. It does not log. A reserved job comes back ready (in
// replicated mode: reserved by no session until its Deadline, if that is
// still ahead); a delayed one whose deadline has passed comes back ready. Jobs should be restored in
// the order they were first put, so that buried lists keep their order. rec.Body becomes the
// job's body without a copy (as PutRequest.Owned): hand over bytes of their own allocation.
func (q *Queue) Restore(rec Record) error {
	if rec.Kind != RecPut || rec.ID == 0 || !validName([]byte(rec.Tube)) {
		return errors.New("jobs: restore needs a whole record with an id and a valid tube")
	}
	t := q.tubes.acquire([]byte(rec.Tube)) // the job's reference
	j := &job{
		id: rec.ID, tube: t, created: rec.Created, heapIdx: -1,
		pri: rec.Pri, ttr: max(int64(rec.TTR), second),
	}
	j.setBody(rec.Body)
	if rec.Delay != 0 || rec.Reserves|rec.Timeouts|rec.Releases|rec.Buries|rec.Kicks != 0 {
		x := j.x()
		x.delay = int64(rec.Delay)
		x.reserves, x.timeouts, x.releases = rec.Reserves, rec.Timeouts, rec.Releases
		x.buries, x.kicks = rec.Buries, rec.Kicks
	}
	now := q.clock.Now()
	var w wakeups
	t.mu.Lock()
	if !q.jobs.putNew(j) {
		t.mu.Unlock()
		q.releaseTube(t)
		return errors.New("jobs: restore of a job that exists")
	}
	q.stats.add(0, cHeldBytes, j.held())
	switch {
	case rec.State == Buried:
		j.state = Buried
		t.buried.pushBack(j)
		q.stats.add(0, cBuried, 1)
	case rec.State == Delayed && rec.Deadline > now:
		j.state, j.x().deadline = Delayed, rec.Deadline
		q.delay(t, j, 0)
	case rec.State == Reserved && q.replicated && rec.Deadline >= now:
		q.restoreOrphan(t, j, rec.Deadline)
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
	t, j := q.lockJob(id)
	if j == nil {
		return 0, false
	}
	defer t.mu.Unlock()
	if j.state == 0 {
		return 0, false
	}
	seq, err := q.append(j.record(RecPut))
	return seq, err == nil
}
