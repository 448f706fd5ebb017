package embed

import (
	"context"
	"errors"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// The errors of Queue and Job. Each is a sentinel: compare with errors.Is.
// Most are the queue core's own, repeated here so that an embedder need not
// import package jobs.
var (
	// ErrClosed: the Queue was closed.
	ErrClosed = errors.New("embed: queue closed")
	// ErrJobTooBig: a body longer than Options.MaxJobSize.
	ErrJobTooBig = errors.New("embed: job body too big")
	// ErrNotFound: no such job, or not in a state the call accepts, or a
	// Job already finished (deleted, released, buried) or whose TTR ended.
	ErrNotFound = jobs.ErrNotFound
	// ErrBadTubeName: a tube name outside the protocol's grammar (1 to 200
	// of letters, digits and -+/;.$_()), not starting with '-').
	ErrBadTubeName = jobs.ErrBadTubeName
	// ErrTimedOut: ReserveTimeout found no job in time, or TryReserve none.
	ErrTimedOut = jobs.ErrTimedOut
	// ErrDraining: the queue refuses new jobs (Jobs().SetDraining).
	ErrDraining = jobs.ErrDraining
	// ErrQueueFull: the tube's policy (max_ready, overflow reject) refuses
	// the job; nothing is stored.
	ErrQueueFull = jobs.ErrQueueFull
	// ErrBuried: the tube's policy (max_ready, overflow bury) stored the
	// job buried. Not a failure: Put returns the job's id with it, once
	// the job is durable (a protocol client gets BURIED <id>).
	ErrBuried = jobs.ErrPutBuried
	// ErrNoSpace: the journal has no room for the job (disk full).
	ErrNoSpace = jobs.ErrNoSpace
	// ErrJournal: the journal failed; the change is not durable. Errors
	// from a failed journal wrap it.
	ErrJournal = jobs.ErrJournal
)

// PutOptions are a job's settings. The zero value is a ready job of
// priority 0 (the most urgent) with the queue's default TTR.
type PutOptions struct {
	// Pri: lower values are reserved first; below 1024 counts as urgent.
	Pri uint32
	// Delay keeps the job out of reach for this long.
	Delay time.Duration
	// TTR is how long a worker may hold the job before it goes back to
	// ready (raised to one second); zero means Options.DefaultTTR.
	TTR time.Duration
}

// Put adds a job with body to tube (created if needed) and returns its id
// once the job is as durable as the fsync policy promises: in memory at
// once; with -f0 (Options.SyncInterval 0) after the fsync that covers it.
// The body is copied; the caller may reuse it. A tube at its policy's
// max_ready answers as the policy's overflow says: ErrQueueFull (nothing
// stored), the id with ErrBuried (stored, buried) or the id with no error
// (stored in the dead-letter tube).
//
// If ctx ends, or the queue closes, before the job is durable, Put returns
// the job's id with the error: the job is queued and may still be lost in a
// crash.
func (q *Queue) Put(ctx context.Context, tube string, body []byte, o PutOptions) (uint64, error) {
	id, seq, err := q.put(tube, body, o)
	if err != nil && err != ErrBuried {
		return 0, err
	}
	if werr := q.commits.Wait(ctx, seq, q.closing); werr != nil {
		return id, werr
	}
	return id, err
}

// PutNoWait is Put without waiting for durability: it returns once the job
// is queued (and may be reserved already). Sync waits for every job put so
// far: put a batch with PutNoWait, then Sync once.
func (q *Queue) PutNoWait(tube string, body []byte, o PutOptions) (uint64, error) {
	id, _, err := q.put(tube, body, o)
	if err != nil && err != ErrBuried {
		return 0, err
	}
	return id, err
}

// Sync returns once every change made through q before the call is as
// durable as the policy promises.
func (q *Queue) Sync(ctx context.Context) error {
	return q.commits.Wait(ctx, q.lastSeq.Load(), q.closing)
}

func (q *Queue) put(tube string, body []byte, o PutOptions) (id, seq uint64, err error) {
	if q.closed.Load() {
		return 0, 0, ErrClosed
	}
	if len(body) > q.opts.MaxJobSize {
		return 0, 0, ErrJobTooBig
	}
	if o.TTR == 0 {
		o.TTR = q.opts.DefaultTTR
	}
	l, err := q.producer(tube)
	if err != nil {
		return 0, 0, err
	}
	id, seq, err = l.session().Put(jobs.PutRequest{
		Pri: o.Pri, Delay: o.Delay, TTR: o.TTR, Body: body, // copied once by the queue
	})
	q.producers.Put(l)
	if err != nil && err != ErrBuried {
		return 0, 0, err
	}
	q.noteSeq(seq)
	return id, seq, err
}

// noteSeq records seq as the highest handed out, for Sync.
func (q *Queue) noteSeq(seq uint64) {
	for {
		cur := q.lastSeq.Load()
		if seq <= cur || q.lastSeq.CompareAndSwap(cur, seq) {
			return
		}
	}
}

// Delete removes a job that is ready, delayed or buried, in any tube, and
// returns once that is durable. A reserved job is deleted through its Job
// (or by its remote client): here it is ErrNotFound.
func (q *Queue) Delete(ctx context.Context, id uint64) error {
	return q.byID(ctx, id, (*jobs.Session).Delete)
}

// KickJob moves one buried or delayed job to ready.
func (q *Queue) KickJob(ctx context.Context, id uint64) error {
	return q.byID(ctx, id, (*jobs.Session).KickJob)
}

func (q *Queue) byID(ctx context.Context, id uint64, op func(*jobs.Session, uint64) (uint64, error)) error {
	if q.closed.Load() {
		return ErrClosed
	}
	l := q.producers.Get().(*lease)
	seq, err := op(l.session(), id)
	q.producers.Put(l)
	if err != nil {
		return err
	}
	q.noteSeq(seq)
	return q.commits.Wait(ctx, seq, q.closing)
}

// Kick moves up to n jobs of tube back to ready: buried ones, oldest first,
// if the tube has any; only otherwise delayed ones, soonest first. It
// returns how many moved, once that is durable.
func (q *Queue) Kick(ctx context.Context, tube string, n int) (int, error) {
	if q.closed.Load() {
		return 0, ErrClosed
	}
	l, err := q.producer(tube)
	if err != nil {
		return 0, err
	}
	kicked, seq, err := l.session().Kick(uint32(min(max(n, 0), 1<<31)))
	q.producers.Put(l)
	if err != nil {
		return kicked, err
	}
	q.noteSeq(seq)
	return kicked, q.commits.Wait(ctx, seq, q.closing)
}

// Pause stops reserves from taking jobs of tube for d (not persisted).
func (q *Queue) Pause(tube string, d time.Duration) error {
	return q.jq.PauseTube([]byte(tube), d)
}

// Clear deletes every ready, delayed and buried job of tube (reserved jobs
// stay with their workers) and returns how many it deleted, once the
// deletion is as durable as the fsync policy promises. It is one journal
// record however many jobs go. jobs.ErrNotFound: no such tube.
func (q *Queue) Clear(ctx context.Context, tube string) (int, error) {
	if q.closed.Load() {
		return 0, ErrClosed
	}
	n, seq, err := q.jq.ClearTube([]byte(tube))
	if err != nil {
		return 0, err
	}
	q.noteSeq(seq)
	return n, q.commits.Wait(ctx, seq, q.closing)
}

// ListJobs returns the ids of tube's jobs in state st, in that state's
// order (ready: priority then id; delayed: deadline; buried: oldest first;
// reserved: by id), skipping offset and returning at most count (at most
// jobs.MaxListJobs). jobs.ErrNotFound: no such tube.
func (q *Queue) ListJobs(tube string, st jobs.State, offset, count int) ([]uint64, error) {
	if q.closed.Load() {
		return nil, ErrClosed
	}
	return q.jq.ListJobs([]byte(tube), st, offset, count, nil)
}
