package jobs

import "sync"

// jobPool recycles jobs: a put-reserve-delete cycle then allocates nothing
// but the body. A job is recycled by Delete, under its tube lock, once it
// left the index, its heap or list and its timer's wheel. Other goroutines
// may still hold its pointer: a lookup that read it from the index just
// before, or a timer firing pass that collected it. Hence the rule: a job
// pointer obtained without its tube lock (from the index, a wheel, a
// session's list) is used only to find the tube - read under the lock that
// proved the job live - and the job is read only after lockJob or
// stillLive confirmed, under the tube lock, that the index still maps its
// id to it. Jobs removed by ClearTube are not recycled (the index drops
// them after the tube lock is released).
var jobPool = sync.Pool{New: func() any { return new(job) }}

func newJob() *job { return jobPool.Get().(*job) }

// recycle returns deleted job j, already out of the index, to the pool.
// t.mu held.
func recycle(j *job) {
	dropExt(j)
	*j = job{}
	jobPool.Put(j)
}

// lockJob finds job id and returns it with its tube locked, or nil with
// nothing locked. The job may still be in state 0 (cleared, not yet out of
// the index).
func (q *Queue) lockJob(id uint64) (*tube, *job) {
	j, t := q.jobs.getTube(id)
	if j == nil {
		return nil, nil
	}
	t.mu.Lock()
	if !q.stillLive(j, id) {
		t.mu.Unlock()
		return nil, nil
	}
	return t, j
}

// stillLive reports whether j, found earlier for id, is still the job the
// index maps id to (it was not deleted, and so not recycled). Called with
// the tube lock that was read alongside j held: deletes happen under it, so
// the answer holds until it is released.
func (q *Queue) stillLive(j *job, id uint64) bool { return q.jobs.get(id) == j }

// extPool recycles job extensions: a put-reserve-delete cycle would
// otherwise allocate one per reservation. An extension is recycled when its
// job is deleted, under the job's tube lock, after its timer was cancelled
// and the job left every list: nothing else points at it by then (the
// wheels hold a timer only while it is armed, and everything else reaches an
// extension through its job under the tube lock).
var extPool = sync.Pool{New: func() any { return new(jobExt) }}

func newExt(j *job) *jobExt {
	x := extPool.Get().(*jobExt)
	x.timer.Owner = j
	return x
}

// dropExt detaches j's extension, if any, and recycles it. j is deleted;
// t.mu held.
func dropExt(j *job) {
	x := j.ext
	if x == nil {
		return
	}
	j.ext = nil
	*x = jobExt{}
	extPool.Put(x)
}

// logJob appends j's record of the given kind to the journal, building the
// record only when there is a journal to take it.
func (q *Queue) logJob(j *job, kind RecordKind) (uint64, error) {
	if q.journal == nil {
		return 0, nil
	}
	return q.journal.Append(j.record(kind))
}
