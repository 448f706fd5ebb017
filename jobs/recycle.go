package jobs

import "sync"

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
