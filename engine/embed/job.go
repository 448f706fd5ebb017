package embed

import (
	"context"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// Job is a job reserved in-process. Finish it with exactly one of Delete,
// Release or Bury (Touch keeps it longer); a Job left unfinished goes back
// to ready when its TTR ends, and its session is reclaimed once the Job is
// garbage.
//
// A Job is a small value: copies refer to the same reservation. Its methods
// are safe for concurrent use (a worker touches a job while its handler
// runs); after the job is finished every method returns ErrNotFound.
type Job struct {
	ID uint64
	// Body is the job's data, shared with the queue: read it, never modify
	// it. It stays valid after the job is finished.
	Body []byte

	q   *Queue
	l   *lease
	gen uint64
}

// Delete removes the job and returns once that is durable. The job is
// finished even if ctx ends first (the error says so). As in the protocol,
// a job whose TTR ended can still be deleted while it is ready again;
// Release, Bury and Touch then return ErrNotFound.
func (j Job) Delete(ctx context.Context) error {
	return j.finish(ctx, func(s *jobs.Session) (uint64, error) { return s.Delete(j.ID) })
}

// Release gives the job back with priority pri: ready at once, or delayed
// by delay.
func (j Job) Release(ctx context.Context, pri uint32, delay time.Duration) error {
	return j.finish(ctx, func(s *jobs.Session) (uint64, error) { return s.Release(j.ID, pri, delay) })
}

// Bury parks the job, with priority pri, at the end of its tube's buried
// list until a Kick.
func (j Job) Bury(ctx context.Context, pri uint32) error {
	return j.finish(ctx, func(s *jobs.Session) (uint64, error) { return s.Bury(j.ID, pri) })
}

// Touch restarts the job's TTR. It is not journaled (nothing to wait for).
func (j Job) Touch() error {
	l := j.l
	if l == nil {
		return ErrNotFound
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.gen.Load() != j.gen {
		return ErrNotFound
	}
	return l.session().Touch(j.ID)
}

// Stats returns the job's state and counters (releases, timeouts, ...).
func (j Job) Stats() (jobs.JobStats, error) {
	if j.q == nil {
		return jobs.JobStats{}, ErrNotFound
	}
	return j.q.jq.StatsJob(j.ID)
}

// finish runs op on the job's session. When the session no longer holds the
// job afterwards (op done, or the job was gone: its TTR ended) the lease
// goes back to the pool; on a journal error the job stays reserved and the
// caller may try again (or Release it).
func (j Job) finish(ctx context.Context, op func(*jobs.Session) (uint64, error)) error {
	l := j.l
	if l == nil {
		return ErrNotFound
	}
	l.mu.Lock()
	if l.gen.Load() != j.gen {
		l.mu.Unlock()
		return ErrNotFound
	}
	seq, err := op(l.session())
	if err != nil && err != jobs.ErrNotFound {
		l.mu.Unlock()
		return err
	}
	l.gen.Add(1)
	l.mu.Unlock()
	j.q.reservers.Put(l)
	if err != nil {
		return err
	}
	j.q.noteSeq(seq)
	return j.q.commits.Wait(ctx, seq, j.q.closing)
}

// giveBack returns an unfinished job to ready without counting a release
// or failure (the worker's hard stop): its session is closed and renewed.
func (j Job) giveBack() {
	l := j.l
	l.mu.Lock()
	if l.gen.Load() != j.gen {
		l.mu.Unlock()
		return
	}
	j.q.renew(l)
	l.gen.Add(1)
	l.mu.Unlock()
	j.q.reservers.Put(l)
}

// done reports whether the job was finished through some copy of j.
func (j Job) done() bool { return j.l == nil || j.l.gen.Load() != j.gen }
