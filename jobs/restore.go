package jobs

import (
	"errors"
	"math"
	"time"
)

// This file holds the journal's way in: Restore (replay at startup) and
// Rewrite (compaction moving live jobs forward), then replicated mode, whose
// records let a follower or a new leader rebuild reservations and pauses.

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
	if rec.Dead != nil {
		j.x().dead = rec.Dead // immutable: shared with the record
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

// RecPause, logged in replicated mode only, pauses tube Tube for Delay
// until Deadline (Clock time, ns); no other field is meaningful. A disk
// journal never receives one.
const RecPause RecordKind = 0x40

// RestorePause re-arms a replicated pause of the tube called name, from
// pause ns (its length) until unpauseAt, if the tube exists and the pause
// has not ended. Used by a new leader after restoring the jobs.
func (q *Queue) RestorePause(name string, pause time.Duration, unpauseAt int64) error {
	if !validName([]byte(name)) || pause <= 0 {
		return errors.New("jobs: restore of a pause needs a valid tube and length")
	}
	t := q.tubes.find([]byte(name))
	if t == nil || unpauseAt <= q.clock.Now() {
		return nil
	}
	t.mu.Lock()
	t.pause, t.unpauseAt = int64(pause), unpauseAt
	q.timers.scheduleTube(t, unpauseAt)
	t.mu.Unlock()
	return nil
}

// Replicated mode (Config.Replicated) is for a queue whose journal is a
// replicated log (package wal/raft): a follower or a new leader rebuilds the
// queue from the records alone, so reservations must be in them too. In this
// mode the queue also logs
//
//   - every reservation (Reserve, a waiter's hand-off, ReserveJob): an update
//     with State Reserved and Deadline the end of its TTR; the edge answers
//     RESERVED only once Committed(Session.LastSeq()) says so;
//   - Touch: the same record with the new deadline (TOUCHED waits likewise);
//   - a TTR running out, and a closing session's jobs going back to ready:
//     an update with State Ready;
//   - a tube pause: a RecPause record (PauseTubeSeq; PAUSED waits for it),
//     which RestorePause re-arms on a new leader.
//
// Restore accepts State Reserved: the job comes back reserved by no session
// (an orphan) until its Deadline, then times out to ready as usual. Any
// session may act on an orphan by id (delete, release, bury, touch): it
// adopts it, so that a worker whose connection moved to another node after
// a failover can finish what it reserved. Without the mode none of this
// runs and nothing changes.

// LastSeq returns the journal sequence number of the latest reservation or
// touch logged for this session (replicated mode only; 0 otherwise). A
// reservation handed to a waiting session is logged by whoever handed it
// over, so this is how the edge learns what to wait for. Safe to call from
// the session's owner at any time.
func (s *Session) LastSeq() uint64 {
	if w := s.w; w != nil {
		return w.lastSeq.Load()
	}
	return 0
}

// logReserved logs that j is now reserved until j.deadline and returns the
// record's sequence number; a refused record yields MaxUint64, a number that
// is never committed (the journal's error reaches the edge through
// Committed). t.mu held.
func (q *Queue) logReserved(j *job) uint64 {
	rec := j.record(RecUpdate)
	rec.State, rec.Deadline = Reserved, j.ext.deadline
	seq, err := q.append(rec)
	if err != nil {
		return math.MaxUint64
	}
	return seq
}

// logRequeued logs that reserved job j goes back to ready (timeouts: the TTR
// ran out), in replicated mode and for a tube whose policy counts reserves.
// Errors are dropped: a failed journal fails every later commit,
// and a replicated queue is then discarded. t.mu held, before the change.
func (q *Queue) logRequeued(j *job, timedOut bool) {
	rec := j.record(RecUpdate) // a reserved job is recorded as ready
	if timedOut {
		rec.Timeouts++
	}
	_, _ = q.append(rec)
}

// restoreOrphan makes j, just restored, reserved by no session until
// deadline. t.mu held.
func (q *Queue) restoreOrphan(t *tube, j *job, deadline int64) {
	j.state, j.x().deadline = Reserved, deadline
	t.reserved++
	q.stats.add(0, cReserved, 1)
	q.timers.scheduleJob(j, deadline+1)
}

// adopt makes s the reserver of orphan j. t.mu held.
func (s *Session) adopt(j *job) {
	s.mu.Lock()
	j.ext.reserver = s
	s.reserved.pushBack(j)
	s.mu.Unlock()
}
