package embed

import (
	"context"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// Reserve takes the most urgent ready job of tubes ("default" if none):
// lowest priority value, then oldest, skipping paused tubes. It blocks
// until a job is ready, ctx ends (then it returns ctx.Err()) or the queue
// closes (ErrClosed). Give a timeout through ctx, or use ReserveTimeout.
//
// The job is the caller's until it calls Delete, Release or Bury, or its
// TTR ends (Touch extends it). Exactly once: a job is handed to one
// caller; one handed over just as ctx ended goes back to ready untouched
// (its counters unchanged but reserves), never lost.
func (q *Queue) Reserve(ctx context.Context, tubes ...string) (Job, error) {
	return q.reserve(ctx, -1, tubes)
}

// ReserveTimeout is Reserve that gives up with ErrTimedOut after timeout,
// measured on the queue's clock (a manual clock in tests). A zero timeout
// only takes a job that is ready now.
func (q *Queue) ReserveTimeout(ctx context.Context, timeout time.Duration, tubes ...string) (Job, error) {
	return q.reserve(ctx, max(timeout, 0), tubes)
}

func (q *Queue) reserve(ctx context.Context, timeout time.Duration, tubes []string) (Job, error) {
	if q.closed.Load() {
		return Job{}, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return Job{}, err
	}
	l := q.reservers.Get().(*lease)
	if err := l.watch(tubes); err != nil {
		q.reservers.Put(l)
		return Job{}, err
	}
	d, err := l.session().Reserve(timeout)
	if err == jobs.ErrWaiting {
		d, err = q.await(ctx, l)
	}
	if err != nil {
		q.reservers.Put(l)
		return Job{}, err
	}
	return Job{ID: d.ID, Body: d.Body(), q: q, l: l, gen: l.gen.Load()}, nil
}

// await waits for the outcome of l's pending reserve. When ctx ends or the
// queue closes first, the wait is cancelled - it leaves no waiter behind -
// and a job won at that very moment goes back to ready.
func (q *Queue) await(ctx context.Context, l *lease) (jobs.JobData, error) {
	s := l.session()
	for {
		var stop error
		select {
		case <-l.wake:
			d, err := s.TakeOutcome()
			if err == jobs.ErrWaiting {
				continue // a wake left over from an earlier wait
			}
			return d, err
		case <-ctx.Done():
			stop = ctx.Err()
		case <-q.closing:
			stop = ErrClosed
		}
		q.abandonWait(l)
		return jobs.JobData{}, stop
	}
}

// abandonWait ends l's pending reserve for a caller that no longer wants a
// job. A job handed over in the meantime goes back to ready by closing the
// session (as a disconnecting client's would: no release is counted); the
// lease gets a new one.
func (q *Queue) abandonWait(l *lease) {
	if _, err := l.session().CancelWait(); err == nil {
		q.renew(l)
	}
}

// TryReserve takes a ready job of tubes without waiting, or returns
// ErrTimedOut.
func (q *Queue) TryReserve(tubes ...string) (Job, error) {
	return q.reserve(context.Background(), 0, tubes)
}
