package raft

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	hraft "github.com/hashicorp/raft"

	"github.com/stalkd/stalkd/jobs"
)

// ErrLeadershipLost: this node stopped being the leader (or shut down)
// before the change was committed. The change may still be committed by the
// next leader, or not; it was never acknowledged.
var ErrLeadershipLost = errors.New("raft: leadership lost before the change was committed")

// applier is what the journal needs of *hraft.Raft (a fake in tests).
type applier interface {
	Apply(cmd []byte, timeout time.Duration) hraft.ApplyFuture
	VerifyLeader() hraft.Future
}

// Journal is the leader's jobs.Journal for one term of leadership: Append
// queues a record, a batcher goroutine packs everything queued into one
// raft entry, and an acker goroutine advances Committed as raft applies the
// entries, in order. Once an entry fails (this node lost leadership) the
// journal is dead: Committed reports the error and Append refuses.
//
// Concurrency: Append, Committed, Subscribe and File are safe for concurrent
// use; Append takes mu, a leaf lock, and never waits.
type Journal struct {
	r           applier
	maxBytes    int
	applyWait   time.Duration
	wake        chan struct{}
	inflight    chan batch
	stop        chan struct{}
	batcherDone chan struct{}
	ackerDone   chan struct{}

	mu      sync.Mutex
	bodies  map[uint64][]byte // bodies of puts appended, not yet applied
	pending []jobs.Record
	size    int    // bytes of pending, about
	seq     uint64 // last sequence number handed out
	dead    error

	flying    atomic.Int64  // entries handed to raft and not yet applied
	landed    chan struct{} // the acker's word that one was applied
	maxFlying int64
	committed atomic.Uint64
	err       atomic.Pointer[error]
	counts    *proposed // shared with the Node; never nil
	subsMu    sync.Mutex
	subs      []func()
	closeOnce sync.Once
}

// batch is one raft entry in flight (or a VerifyLeader round, for read
// fences alone: fence.go): the records up to last.
type batch struct {
	f    hraft.Future
	last uint64
}

// proposed counts what leaders of this node handed to raft: entries and
// the records in them (their ratio is the group-commit factor).
type proposed struct{ entries, records atomic.Uint64 }

func newJournal(r applier, maxBytes, maxInflight int, applyWait time.Duration, counts *proposed) *Journal {
	if counts == nil {
		counts = new(proposed)
	}
	j := &Journal{
		r: r, maxBytes: maxBytes, applyWait: applyWait, counts: counts,
		wake:        make(chan struct{}, 1),
		inflight:    make(chan batch, maxInflight),
		stop:        make(chan struct{}),
		batcherDone: make(chan struct{}),
		ackerDone:   make(chan struct{}),
		bodies:      make(map[uint64][]byte),
		landed:      make(chan struct{}, 1),
		maxFlying:   int64(maxInflight),
	}
	go j.runBatcher()
	go j.runAcker()
	return j
}

// Append implements jobs.Journal.
func (j *Journal) Append(rec jobs.Record) (uint64, error) {
	if !encodable(rec.Kind) { // a kind added to jobs without a raft encoding: refuse, never mis-encode
		return 0, fmt.Errorf("%w: raft: record kind %d has no entry encoding", jobs.ErrJournal, rec.Kind)
	}
	j.mu.Lock()
	if j.dead != nil {
		j.mu.Unlock()
		return 0, jobs.ErrJournal
	}
	j.seq++
	seq := j.seq
	j.pending = append(j.pending, rec)
	j.size += recordSizeHint(&rec)
	if rec.Kind == jobs.RecPut {
		j.bodies[rec.ID] = rec.Body
	}
	j.mu.Unlock()
	select {
	case j.wake <- struct{}{}:
	default:
	}
	return seq, nil
}

// Committed implements jobs.Journal.
func (j *Journal) Committed() (uint64, error) {
	c := j.committed.Load()
	if e := j.err.Load(); e != nil {
		return c, *e
	}
	return c, nil
}

// Subscribe implements jobs.Journal.
func (j *Journal) Subscribe(fn func()) {
	j.subsMu.Lock()
	j.subs = append(j.subs, fn)
	j.subsMu.Unlock()
}

// File implements jobs.Journal: a replicated job lives in no file.
func (j *Journal) File(uint64) int { return 0 }

// Close stops the journal: records not yet handed to raft are dropped and
// every change not yet committed reports ErrLeadershipLost. Idempotent.
func (j *Journal) Close() {
	j.closeOnce.Do(func() {
		j.fail(ErrLeadershipLost)
		close(j.stop)
		<-j.batcherDone
		<-j.ackerDone
	})
}

// fail kills the journal with err (the first error wins) and tells the
// subscribers, so that held replies get their answer.
func (j *Journal) fail(err error) {
	j.mu.Lock()
	first := j.dead == nil
	if first {
		j.dead = err
		j.pending = nil
		j.bodies = nil
		e := fmt.Errorf("%w: %w", jobs.ErrJournal, err)
		j.err.Store(&e)
	}
	j.mu.Unlock()
	if first {
		j.notify()
	}
}

func (j *Journal) notify() {
	j.subsMu.Lock()
	subs := j.subs
	j.subsMu.Unlock()
	for _, fn := range subs {
		fn()
	}
}

// runBatcher hands what is pending to raft, one entry at a time; while
// MaxInflight entries are in flight (handed to raft, not yet applied) it
// waits, and records pile up for the next entry (group commit). Every entry
// costs each node an fsync and a round of wake-ups, so on busy cores fewer,
// larger entries carry more puts per second.
func (j *Journal) runBatcher() {
	defer close(j.batcherDone)
	defer close(j.inflight)
	for {
		select {
		case <-j.stop:
			return
		case <-j.wake:
		}
		for {
			for j.flying.Load() >= j.maxFlying {
				select {
				case <-j.landed:
				case <-j.stop:
					return
				}
			}
			recs, last := j.take()
			if len(recs) == 0 {
				break
			}
			j.flying.Add(1)
			f := j.propose(recs)
			select {
			case j.inflight <- batch{f: f, last: last}:
			case <-j.stop:
				return
			}
		}
	}
}

// take removes up to maxBytes of pending records (at least one) and
// returns them with the sequence number of the last.
func (j *Journal) take() ([]jobs.Record, uint64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.dead != nil || len(j.pending) == 0 {
		return nil, 0
	}
	n, size := 0, 0
	for n < len(j.pending) && (n == 0 || size+recordSizeHint(&j.pending[n]) <= j.maxBytes) {
		size += recordSizeHint(&j.pending[n])
		n++
	}
	recs := j.pending[:n:n]
	j.pending = j.pending[n:]
	if len(j.pending) == 0 {
		j.pending = nil
	}
	j.size -= size
	return recs, j.seq - uint64(len(j.pending))
}

// runAcker waits for each entry in order and publishes Committed.
func (j *Journal) runAcker() {
	defer close(j.ackerDone)
	for b := range j.inflight {
		err := b.f.Error()
		j.flying.Add(-1)
		select {
		case j.landed <- struct{}{}:
		default:
		}
		if af, ok := b.f.(hraft.ApplyFuture); ok && err == nil {
			if resp, ok := af.Response().(error); ok && resp != nil {
				err = resp
			}
		}
		if err != nil {
			if errors.Is(err, hraft.ErrLeadershipLost) || errors.Is(err, hraft.ErrNotLeader) ||
				errors.Is(err, hraft.ErrRaftShutdown) || errors.Is(err, hraft.ErrEnqueueTimeout) {
				err = fmt.Errorf("%w (%w)", ErrLeadershipLost, err)
			}
			j.fail(err)
			continue
		}
		if j.err.Load() != nil {
			continue
		}
		j.committed.Store(b.last)
		j.notify()
	}
}

// takeBody returns the body the queue put job id with, if it is still
// in flight here and its bytes are view's, so that the leader's replicated
// state shares the queue's copy instead of keeping a second one. Called by
// the FSM, once per put applied.
func (j *Journal) takeBody(id uint64, view []byte) []byte {
	j.mu.Lock()
	b, ok := j.bodies[id]
	if ok {
		delete(j.bodies, id)
	}
	j.mu.Unlock()
	if ok && bytes.Equal(b, view) {
		return b
	}
	return nil
}
