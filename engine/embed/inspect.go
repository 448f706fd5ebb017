package embed

import "github.com/stalkd/stalkd/jobs"

// Peeked is a job looked at without reserving it.
type Peeked struct {
	ID uint64
	// Body is shared with the queue: read it, never modify it. It stays
	// valid after the job is gone.
	Body []byte
}

// Peek returns any job by id, whatever its state and tube.
func (q *Queue) Peek(id uint64) (Peeked, error) {
	d, err := q.jq.Peek(id)
	if err != nil {
		return Peeked{}, err
	}
	return Peeked{ID: d.ID, Body: d.Body()}, nil
}

// PeekReady returns the job of tube that a reserve would take next
// (ignoring a pause); ErrNotFound if none is ready.
func (q *Queue) PeekReady(tube string) (Peeked, error) {
	return q.peek(tube, (*jobs.Session).PeekReady)
}

// PeekDelayed returns the delayed job of tube that becomes ready first.
func (q *Queue) PeekDelayed(tube string) (Peeked, error) {
	return q.peek(tube, (*jobs.Session).PeekDelayed)
}

// PeekBuried returns the oldest buried job of tube.
func (q *Queue) PeekBuried(tube string) (Peeked, error) {
	return q.peek(tube, (*jobs.Session).PeekBuried)
}

func (q *Queue) peek(tube string, op func(*jobs.Session) (jobs.JobData, error)) (Peeked, error) {
	l, err := q.producer(tube)
	if err != nil {
		return Peeked{}, err
	}
	d, err := op(l.session())
	q.producers.Put(l)
	if err != nil {
		return Peeked{}, err
	}
	return Peeked{ID: d.ID, Body: d.Body()}, nil
}

// Stats returns the queue's counters (the stats command's queue half).
// In-process callers count as connections.
func (q *Queue) Stats() jobs.Stats { return q.jq.Stats() }

// StatsTube returns a tube's counters; ErrNotFound if no such tube.
func (q *Queue) StatsTube(tube string) (jobs.TubeStats, error) {
	return q.jq.StatsTube([]byte(tube))
}

// StatsJob returns a job's state and counters; ErrNotFound if no such job.
func (q *Queue) StatsJob(id uint64) (jobs.JobStats, error) { return q.jq.StatsJob(id) }

// ListTubes returns the names of the existing tubes. A tube exists while
// a job or a session (a pooled in-process one too) refers to it.
func (q *Queue) ListTubes() []string { return q.jq.ListTubes(nil) }
