package enginetest

import (
	"sync"

	"github.com/stalkd/stalkd/jobs"
)

// Journal is a jobs.Journal that commits only when the test says so: the
// commits a server or an embedded queue waits for, driven by hand. Safe for
// concurrent use.
type Journal struct {
	mu             sync.Mutex
	seq, committed uint64
	err            error
	full           bool
	subs           []func()
}

func (j *Journal) Append(jobs.Record) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.full {
		return 0, jobs.ErrNoSpace
	}
	j.seq++
	return j.seq, nil
}

func (j *Journal) Committed() (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.committed, j.err
}

func (j *Journal) Subscribe(fn func()) {
	j.mu.Lock()
	j.subs = append(j.subs, fn)
	j.mu.Unlock()
}

func (j *Journal) File(uint64) int { return 0 }

func (j *Journal) notify() {
	j.mu.Lock()
	subs := append([]func(){}, j.subs...)
	j.mu.Unlock()
	for _, fn := range subs {
		fn()
	}
}

// CommitAll commits everything appended so far.
func (j *Journal) CommitAll() {
	j.mu.Lock()
	j.committed = j.seq
	j.mu.Unlock()
	j.notify()
}

// Commit commits up to seq (or fails with err) and notifies.
func (j *Journal) Commit(seq uint64, err error) {
	j.mu.Lock()
	j.committed, j.err = seq, err
	j.mu.Unlock()
	j.notify()
}

// Fail makes every uncommitted record fail.
func (j *Journal) Fail(err error) {
	j.mu.Lock()
	j.err = err
	j.mu.Unlock()
	j.notify()
}

// Appended is how many records were appended.
func (j *Journal) Appended() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.seq
}

// SetFull makes Append fail with jobs.ErrNoSpace (the disk is full).
func (j *Journal) SetFull(full bool) {
	j.mu.Lock()
	j.full = full
	j.mu.Unlock()
}
