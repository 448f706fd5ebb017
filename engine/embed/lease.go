package embed

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/stalkd/stalkd/jobs"
)

// A lease is a jobs.Session lent to one goroutine at a time. jobs wants a
// session per client, owned by one goroutine; in-process callers are many
// goroutines, so each call borrows a pooled session, and a reserve keeps
// its session until the job is finished (deleted, released, buried, or its
// TTR ended): the job belongs to that session, as it would to a connection.
//
// A lease nobody references any more (dropped by the pool, or a Job the
// caller forgot) has its session closed by a cleanup: a reserved job goes
// back to ready, as when a client disconnects.
type lease struct {
	box  *sessionBox
	wake chan struct{} // the session's wake function sends here
	// mu serializes the operations on the leased job (the owner's calls
	// and a worker's touches); gen counts the jobs finished, so that a
	// stale Job value cannot act on a later job of the same lease.
	mu  sync.Mutex
	gen atomic.Uint64

	watched []string // scratch for the watch list comparison
}

// sessionBox holds the lease's session for the cleanup, which must not
// reference the lease itself.
type sessionBox struct{ s *jobs.Session }

func (q *Queue) newLease() *lease {
	l := &lease{wake: make(chan struct{}, 1), box: &sessionBox{}}
	l.box.s = q.jq.NewSession(wakeFunc(l.wake))
	runtime.AddCleanup(l, func(b *sessionBox) { b.s.Close() }, l.box)
	return l
}

// wakeFunc returns a session wake function that never blocks.
func wakeFunc(ch chan struct{}) func() {
	return func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (l *lease) session() *jobs.Session { return l.box.s }

// renew closes the lease's session - every job it holds goes back to ready,
// uncounted, as when a connection closes - and gives the lease a fresh one.
// Owner only.
func (q *Queue) renew(l *lease) {
	l.box.s.Close()
	l.box.s = q.jq.NewSession(wakeFunc(l.wake))
}

// producer borrows a session for put, peek-*, kick and delete, using tube.
// Give it back with q.producers.Put.
func (q *Queue) producer(tube string) (*lease, error) {
	l := q.producers.Get().(*lease)
	s := l.session()
	if s.Used() != tube {
		if err := s.Use([]byte(tube)); err != nil {
			q.producers.Put(l)
			return nil, err
		}
	}
	return l, nil
}

// watch makes the session watch exactly tubes ("default" if none), with as
// few changes as possible: a pooled session usually watches them already.
func (l *lease) watch(tubes []string) error {
	if len(tubes) == 0 {
		tubes = defaultTubes[:]
	}
	s := l.session()
	l.watched = s.Watched(l.watched[:0])
	if sameSet(l.watched, tubes) {
		return nil
	}
	for _, t := range tubes {
		if _, err := s.Watch([]byte(t)); err != nil {
			return err
		}
	}
	for _, t := range l.watched {
		if !contains(tubes, t) {
			if _, err := s.Ignore([]byte(t)); err != nil {
				return err
			}
		}
	}
	return nil
}

var defaultTubes = [1]string{"default"}

// sameSet reports whether a (no duplicates) and b hold the same names.
func sameSet(a, b []string) bool {
	for _, x := range b {
		if !contains(a, x) {
			return false
		}
	}
	for _, x := range a {
		if !contains(b, x) {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
