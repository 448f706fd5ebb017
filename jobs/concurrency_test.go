package jobs

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ledger tracks, per job id, who holds the job and how often it was
// deleted, so that the concurrency test can check exclusive delivery and
// that no job is lost or deleted twice.
type ledger struct {
	held    []atomic.Bool
	deleted []atomic.Int32
	left    atomic.Int64 // jobs not deleted yet
}

func newLedger(n int) *ledger {
	l := &ledger{held: make([]atomic.Bool, n+1), deleted: make([]atomic.Int32, n+1)}
	l.left.Store(int64(n))
	return l
}

// got records that a session received id; a job held twice at once fails.
func (l *ledger) got(t *testing.T, id uint64) bool {
	if id == 0 || id >= uint64(len(l.held)) || !l.held[id].CompareAndSwap(false, true) {
		t.Errorf("job %d delivered while held, or unknown", id)
		return false
	}
	return true
}

func (l *ledger) giveBack(id uint64) { l.held[id].Store(false) }

// TestConcurrentSessions runs hundreds of goroutine sessions against one
// queue whose timers the real Run drives: producers put (some delayed),
// consumers reserve (blocking, with timeouts, served through wake), delete,
// release, bury and kick, and close mid-wait or holding jobs. Every job
// must be deleted exactly once, never be held by two sessions at once, and
// the queue must end empty and consistent.
func TestConcurrentSessions(t *testing.T) {
	const producers, consumers, perProducer = 100, 100, 30
	const total = producers * perProducer
	q := New(Config{})
	runQueue(t, q)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a bound, never reached when all is well
	defer cancel()
	done := make(chan struct{}) // closed when the last job is deleted
	l := newLedger(total)
	tubes := []string{"default", "t1", "t2"}

	var wg sync.WaitGroup
	wg.Add(producers + consumers)
	for p := range producers {
		go func() {
			defer wg.Done()
			produce(t, q, tubes[p%len(tubes)], perProducer, uint64(p))
		}()
	}
	for c := range consumers {
		go func() {
			defer wg.Done()
			consume(ctx, t, q, l, tubes, done, uint64(c))
		}()
	}
	wg.Wait()
	require.NoError(t, ctx.Err(), "%d jobs never deleted", l.left.Load())
	for id := 1; id <= total; id++ {
		assert.Equal(t, int32(1), l.deleted[id].Load(), "job %d", id)
	}
	st := q.Stats()
	assert.Zero(t, st.Ready+st.Reserved+st.Delayed+st.Buried, "no live jobs")
	assert.Zero(t, st.Urgent)
	assert.Zero(t, st.Waiting)
	assert.Zero(t, st.Connections+st.Producers+st.Workers)
	assert.Equal(t, uint64(total), st.TotalJobs)
	assert.Equal(t, 1, st.Tubes)
	assert.Zero(t, st.JobTimeouts, "TTRs are long")
}

func produce(t *testing.T, q *Queue, tube string, n int, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 1))
	s := q.NewSession(nil)
	defer s.Close()
	assert.NoError(t, s.Use([]byte(tube)))
	for range n {
		var delay time.Duration
		if r.IntN(4) == 0 {
			delay = time.Duration(1+r.IntN(3)) * time.Millisecond
		}
		_, _, err := s.Put(PutRequest{Pri: uint32(r.IntN(3)), Delay: delay, TTR: time.Hour, Owned: body("job")})
		assert.NoError(t, err)
	}
}

// worker is one consumer goroutine's current session.
type worker struct {
	s    *Session
	wake chan struct{}
	held []uint64
}

func newWorker(q *Queue, tubes []string) *worker {
	w := &worker{wake: make(chan struct{}, 1)}
	w.s = q.NewSession(func() {
		select {
		case w.wake <- struct{}{}:
		default:
		}
	})
	for _, n := range tubes {
		_, _ = w.s.Watch([]byte(n))
	}
	return w
}

// close ends the session; the jobs it held go back to ready.
func (w *worker) close(l *ledger) {
	for _, id := range w.held {
		l.giveBack(id)
	}
	w.s.Close()
}

func consume(ctx context.Context, t *testing.T, q *Queue, l *ledger, tubes []string, done chan struct{}, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 2))
	w := newWorker(q, tubes)
	defer func() { w.close(l) }()
	for ctx.Err() == nil && l.left.Load() > 0 {
		timeout := time.Duration(-1)
		if r.IntN(3) == 0 {
			timeout = time.Duration(r.IntN(3)) * time.Millisecond
		}
		d, err := w.s.Reserve(timeout)
		if errors.Is(err, ErrWaiting) {
			if r.IntN(10) == 0 { // give up mid-wait; a job handed over goes back
				w.close(l)
				w = newWorker(q, tubes)
				continue
			}
			select {
			case <-w.wake:
				d, err = w.s.TakeOutcome()
			case <-done:
				return
			case <-ctx.Done():
				return
			}
		}
		if errors.Is(err, ErrTimedOut) {
			continue
		}
		if !assert.NoError(t, err) || !l.got(t, d.ID) {
			return
		}
		w.held = append(w.held, d.ID)
		switch w.handle(t, l, r) {
		case reopen:
			w.close(l)
			w = newWorker(q, tubes)
		case lastOne:
			close(done)
		}
	}
}

const (
	carryOn = iota
	reopen  // close the session while it holds the job, and open another
	lastOne // the very last job was deleted
)

// handle acts on the job just reserved (the last one held): mostly delete
// it, sometimes release or bury-and-kick it, or ask for the session to be
// closed while it holds it.
func (w *worker) handle(t *testing.T, l *ledger, r *rand.Rand) int {
	id := w.held[len(w.held)-1]
	switch x := r.IntN(20); {
	case x == 0:
		return reopen
	case x < 3:
		w.held = w.held[:len(w.held)-1]
		l.giveBack(id)
		_, err := w.s.Release(id, uint32(r.IntN(3)), time.Duration(r.IntN(2))*time.Millisecond)
		assert.NoError(t, err)
		return carryOn
	case x < 5:
		w.held = w.held[:len(w.held)-1]
		l.giveBack(id)
		_, err := w.s.Bury(id, 0)
		assert.NoError(t, err)
		_, err = w.s.KickJob(id)
		assert.NoError(t, err)
		return carryOn
	}
	w.held = w.held[:len(w.held)-1]
	l.giveBack(id)
	l.deleted[id].Add(1)
	_, err := w.s.Delete(id)
	assert.NoError(t, err)
	if l.left.Add(-1) == 0 {
		return lastOne
	}
	return carryOn
}
