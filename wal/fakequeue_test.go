package wal

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// fakeQueue plays the queue's side of the journal contract: it appends the
// records package jobs would append (before changing its state, under one
// lock standing for the tube locks), and implements Restore, EnsureNextID
// and Rewrite. logged is what a restart must bring back: each job's state
// as last written to the journal.
type fakeQueue struct {
	mu       sync.Mutex
	j        jobs.Journal
	now      int64
	next     uint64
	jobs     map[uint64]*jobs.Record // current state (Reserved possible)
	logged   map[uint64]jobs.Record  // last logged state of each live job
	restored []jobs.Record           // Restore calls, in order
	rewrites int
}

func newFakeQueue(j jobs.Journal) *fakeQueue {
	return &fakeQueue{j: j, now: 1_000_000_000, next: 1, jobs: map[uint64]*jobs.Record{}, logged: map[uint64]jobs.Record{}}
}

func (f *fakeQueue) Restore(rec jobs.Record) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.jobs[rec.ID]; ok {
		return fmt.Errorf("job %d restored twice", rec.ID)
	}
	r := rec
	f.jobs[rec.ID] = &r
	f.logged[rec.ID] = rec
	f.restored = append(f.restored, rec)
	f.next = max(f.next, rec.ID+1)
	return nil
}

func (f *fakeQueue) EnsureNextID(next uint64) {
	f.mu.Lock()
	f.next = max(f.next, next)
	f.mu.Unlock()
}

// nextID spends an id as jobs.Queue does: from the journal when it hands
// ids out itself (jobs.IDSource), else from the queue's own counter. f.mu
// held.
func (f *fakeQueue) nextID() uint64 {
	if src, ok := f.j.(interface{ NextID() uint64 }); ok {
		id := src.NextID()
		f.next = max(f.next, id+1)
		return id
	}
	f.next++
	return f.next - 1
}

func (f *fakeQueue) Rewrite(id uint64) (uint64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, ok := f.jobs[id]
	if !ok {
		return 0, false
	}
	f.rewrites++
	seq, err := f.log(jobs.RecPut, j)
	return seq, err == nil
}

// log appends j's state as a record of kind (a reserved job is logged as
// ready) and notes it as the job's last logged state. f.mu held.
func (f *fakeQueue) log(kind jobs.RecordKind, j *jobs.Record) (uint64, error) {
	rec := *j
	rec.Kind = kind
	if rec.State == jobs.Reserved {
		rec.State = jobs.Ready
	}
	if kind != jobs.RecPut {
		rec.Tube, rec.Body = "", nil
	}
	if kind == jobs.RecDelete {
		rec = jobs.Record{Kind: kind, ID: j.ID}
	}
	seq, err := f.j.Append(rec)
	if err != nil {
		return 0, err
	}
	switch kind {
	case jobs.RecDelete:
		delete(f.logged, j.ID)
	case jobs.RecPut:
		f.logged[j.ID] = rec
	default:
		l := f.logged[j.ID]
		applyUpdate(&l, &rec)
		f.logged[j.ID] = l
	}
	return seq, nil
}

func (f *fakeQueue) put(tube string, pri uint32, delay time.Duration, body string) (id, seq uint64, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id = f.nextID()
	j := &jobs.Record{ID: id, Tube: tube, State: jobs.Ready, Pri: pri, Delay: delay, TTR: time.Second,
		Created: f.now, Body: []byte(body)}
	if delay > 0 {
		j.State, j.Deadline = jobs.Delayed, f.now+int64(delay)
	}
	if seq, err = f.log(jobs.RecPut, j); err != nil {
		return id, 0, err
	}
	f.jobs[id] = j
	return id, seq, nil
}

// change applies fn to a copy of job id, logs it as an update (unless
// !logged: reserve and touch are not logged) and keeps it.
func (f *fakeQueue) change(id uint64, logged bool, fn func(j *jobs.Record)) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	old, ok := f.jobs[id]
	if !ok {
		return 0, jobs.ErrNotFound
	}
	j := *old
	fn(&j)
	var seq uint64
	if logged {
		var err error
		if seq, err = f.log(jobs.RecUpdate, &j); err != nil {
			return 0, err
		}
	}
	*old = j
	return seq, nil
}

func (f *fakeQueue) reserve(id uint64) {
	f.change(id, false, func(j *jobs.Record) { j.State, j.Deadline = jobs.Reserved, 0; j.Reserves++ })
}

func (f *fakeQueue) reserveJob(id uint64) (uint64, error) {
	return f.change(id, true, func(j *jobs.Record) { j.State, j.Deadline = jobs.Reserved, 0; j.Reserves++ })
}

func (f *fakeQueue) release(id uint64, pri uint32, delay time.Duration) (uint64, error) {
	return f.change(id, true, func(j *jobs.Record) {
		j.Pri, j.Delay, j.State, j.Deadline = pri, delay, jobs.Ready, 0
		if delay > 0 {
			j.State, j.Deadline = jobs.Delayed, f.now+int64(delay)
		}
		j.Releases++
	})
}

func (f *fakeQueue) bury(id uint64, pri uint32) (uint64, error) {
	return f.change(id, true, func(j *jobs.Record) { j.Pri, j.State, j.Deadline = pri, jobs.Buried, 0; j.Buries++ })
}

func (f *fakeQueue) kick(id uint64) (uint64, error) {
	return f.change(id, true, func(j *jobs.Record) { j.State, j.Deadline = jobs.Ready, 0; j.Kicks++ })
}

func (f *fakeQueue) del(id uint64) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	j, ok := f.jobs[id]
	if !ok {
		return 0, jobs.ErrNotFound
	}
	seq, err := f.log(jobs.RecDelete, j)
	if err != nil {
		return 0, err
	}
	delete(f.jobs, id)
	return seq, nil
}

// clear removes every job of tube with one RecClear record, as the queue's
// clear-tube does, and returns the ids it removed.
func (f *fakeQueue) clear(tube string) (ids []uint64, seq uint64, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, j := range f.jobs {
		if j.Tube == tube {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, k int) bool { return ids[i] < ids[k] })
	seq, err = f.j.Append(jobs.Record{Kind: jobs.RecClear, IDs: ids})
	if err != nil {
		return nil, 0, err
	}
	for _, id := range ids {
		delete(f.jobs, id)
		delete(f.logged, id)
	}
	return ids, seq, nil
}

func (f *fakeQueue) ids() []uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := make([]uint64, 0, len(f.jobs))
	for id := range f.jobs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, k int) bool { return ids[i] < ids[k] })
	return ids
}

func (f *fakeQueue) loggedCopy() map[uint64]jobs.Record {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := make(map[uint64]jobs.Record, len(f.logged))
	for id, r := range f.logged {
		m[id] = r
	}
	return m
}
