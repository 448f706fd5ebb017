package jobs

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/stalkd/stalkd/jobs/internal/wheel"
)

// Wait states of a session: the low bits of Session.wstate. The bits above
// them number the session's waits, so that a timer armed for one wait can
// never end a later one.
const (
	idle    uint64 = iota
	waiting        // registered as a waiter on every watched tube
	claimed        // a job or a timeout has been given to it; delivery follows
	closed

	stateMask = 3
	waitShift = 2
)

// Session is one client of the queue: a network connection, or a goroutine
// of an embedding program. It has a used tube and a watch list, and owns the
// jobs it reserved.
//
// Concurrency: a Session's methods must be called by one goroutine at a time
// (its owner, e.g. the connection's event loop). The queue itself touches
// the session from other goroutines only through the wake function, wstate,
// the fields guarded by mu, and the wait state of a wait it has won.
//
// Size: a server holds one Session per connection, most of them idle, so
// what only a waiting reserve needs lives in a waitState allocated on the
// first wait, and a fresh session's watch list is the queue's shared
// one-element "default" list (copied on write). TestSessionSize pins it.
type Session struct {
	q    *Queue
	id   uint64
	wake Waker // nil: nobody to tell

	// Owner-only state.
	use *tube
	// watch is the watch list in listing order (reference "ms"
	// semantics). It may be the queue's shared default list: never write
	// through it, replace it (see Watch, unwatchAt).
	watch []*tube
	// sorted is the watch list by tube serial, the order tube locks are
	// taken in; nil while the list has one tube (watch is then sorted).
	sorted *[]*tube

	// w is the wait state, nil until the first Reserve that waits (or,
	// in replicated mode, the first reservation). Only the owner sets it,
	// and before the session is published as waiting (wstate, under the
	// watched tube locks), so whoever wins a wait sees it.
	w      *waitState
	wstate atomic.Uint64 // waits<<waitShift | state

	mu       sync.Mutex
	reserved jobList // jobs reserved by this session
	producer bool    // owner only
	worker   bool    // owner only
	isClosed bool    // mu
}

// waitState is what a Session needs only once it has waited in Reserve
// (or, in replicated mode, reserved a job: lastSeq); it is kept for the
// session's life once allocated.
type waitState struct {
	// waits counts the waits started (owner only). tubes is written by
	// the owner before the session is published as waiting, and read by
	// whoever claims the wait. timerWait is the wait the timer was armed
	// for (guarded by the timer shard's lock, as is timer).
	waits     uint64
	tubes     []*tube
	timer     wheel.Timer[*Session]
	timerWait uint64

	// Guarded by Session.mu: the pending outcome.
	outcome    JobData
	outcomeErr error
	hasOutcome bool
	// soon: the pending wait's timer is its DEADLINE_SOON margin rather
	// than its timeout. The jobs of a waiting session cannot be touched,
	// so the margin, once armed, only ever comes true.
	soon bool

	lastSeq atomic.Uint64 // replicated mode: see LastSeq
}

// wait returns the session's wait state, allocating it if needed. Owner
// only: the session is not waiting, so no other goroutine looks at s.w.
func (s *Session) wait() *waitState {
	if s.w == nil {
		s.w = &waitState{}
		s.w.timer.Owner = s
	}
	return s.w
}

// stripe is the session's counter stripe.
func (s *Session) stripe() int { return int(s.id % stripes) }

// Waker is told that a session's pending Reserve has an outcome ready for
// TakeOutcome. Wake is called from another goroutine, with no queue lock
// held, and must not block.
type Waker interface{ Wake() }

// wakeFunc adapts a function to Waker (a func is pointer-shaped: storing
// one in the interface allocates nothing).
type wakeFunc func()

func (f wakeFunc) Wake() { f() }

// NewSession opens a session using and watching "default". wake, if not nil,
// is called (from another goroutine, with no queue lock held) when a Reserve
// that returned ErrWaiting has an outcome ready for TakeOutcome.
func (q *Queue) NewSession(wake func()) *Session {
	if wake == nil {
		return q.NewSessionWaker(nil)
	}
	return q.NewSessionWaker(wakeFunc(wake))
}

// NewSessionWaker is NewSession with the wake-up as a Waker (nil: none). A
// caller that already has an object to wake, such as a connection, spares
// the allocation of a closure or method value.
func (q *Queue) NewSessionWaker(wake Waker) *Session {
	s := &Session{q: q, id: q.sessions.Add(1), wake: wake}
	// "default" is never dropped (the queue holds a reference), so its
	// references are taken without a registry lookup.
	s.use = q.defTube
	s.watch = q.defWatch[:]
	q.defTube.refs.Add(2)
	s.use.mu.Lock()
	s.use.using++
	s.use.watching++
	s.use.mu.Unlock()
	q.stats.add(s.stripe(), cConnections, 1)
	q.stats.add(s.stripe(), cTotalConnections, 1)
	return s
}

// watchSorted returns the watch list in tube serial order.
func (s *Session) watchSorted() []*tube {
	if s.sorted != nil {
		return *s.sorted
	}
	return s.watch
}

// Count adds one to command counter c, 0 <= c < MaxCommands (the protocol
// edge counts each command once it parses; the numbering is its own).
func (s *Session) Count(c int) { s.q.stats.add(s.stripe(), counter(c), 1) }

// SetProducer marks the session as a producer (it sent a put).
func (s *Session) SetProducer() {
	if !s.producer {
		s.producer = true
		s.q.stats.add(s.stripe(), cProducers, 1)
	}
}

func (s *Session) setWorker() {
	if !s.worker {
		s.worker = true
		s.q.stats.add(s.stripe(), cWorkers, 1)
	}
}

// Used returns the name of the tube that put and the peek-* and kick
// commands act on.
func (s *Session) Used() string { return s.use.name }

// Watched appends the names of the watched tubes to dst, in listing order.
func (s *Session) Watched(dst []string) []string {
	for _, t := range s.watch {
		dst = append(dst, t.name)
	}
	return dst
}

// Use makes name the used tube, creating it if needed.
func (s *Session) Use(name []byte) error {
	if !validName(name) {
		return ErrBadTubeName
	}
	t := s.q.tubes.acquire(name)
	addUsing(t, 1)
	old := s.use
	s.use = t
	addUsing(old, -1)
	s.q.releaseTube(old)
	return nil
}

// Watch adds name to the watch list (creating the tube if needed) and
// returns the number of watched tubes.
func (s *Session) Watch(name []byte) (int, error) {
	if !validName(name) {
		return 0, ErrBadTubeName
	}
	if s.watchIndex(name) >= 0 {
		return len(s.watch), nil
	}
	t := s.q.tubes.acquire(name)
	addWatching(t, 1)
	s.watch = append(s.watch, t) // a shared list has no spare capacity: copied
	s.sortWatch()
	return len(s.watch), nil
}

// Ignore removes name from the watch list and returns the number of watched
// tubes. Ignoring a tube that is not watched is not an error; ignoring the
// only watched tube is ErrNotIgnored.
func (s *Session) Ignore(name []byte) (int, error) {
	if !validName(name) {
		return 0, ErrBadTubeName
	}
	i := s.watchIndex(name)
	if i < 0 {
		return len(s.watch), nil
	}
	if len(s.watch) < 2 {
		return 0, ErrNotIgnored
	}
	s.unwatchAt(i)
	s.sortWatch()
	return len(s.watch), nil
}

func (s *Session) watchIndex(name []byte) int {
	for i, t := range s.watch {
		if t.name == string(name) {
			return i
		}
	}
	return -1
}

// unwatchAt removes watch[i] the way the reference does: the last item moves
// into the hole. The list has at least two tubes, so it is not the shared
// default list (which has one).
func (s *Session) unwatchAt(i int) {
	t := s.watch[i]
	n := len(s.watch) - 1
	s.watch[i] = s.watch[n]
	s.watch[n] = nil
	s.watch = s.watch[:n]
	addWatching(t, -1)
	s.q.releaseTube(t)
}

// sortWatch brings sorted up to date after the watch list changed.
func (s *Session) sortWatch() {
	if len(s.watch) < 2 {
		s.sorted = nil
		return
	}
	if s.sorted == nil {
		s.sorted = new([]*tube)
	}
	ws := append((*s.sorted)[:0], s.watch...)
	clear(ws[len(ws):cap(ws)])
	slices.SortFunc(ws, func(a, b *tube) int {
		return cmp.Compare(a.serial, b.serial)
	})
	*s.sorted = ws
}

func addUsing(t *tube, d int64) {
	t.mu.Lock()
	t.using += d
	t.mu.Unlock()
}

func addWatching(t *tube, d int64) {
	t.mu.Lock()
	t.watching += d
	t.mu.Unlock()
}

// claim moves the current wait, whichever it is, from waiting to state to;
// it fails if the session is not waiting. Exactly one claim of a wait wins.
func (s *Session) claim(to uint64) bool {
	for {
		v := s.wstate.Load()
		if v&stateMask != waiting {
			return false
		}
		if s.wstate.CompareAndSwap(v, v&^stateMask|to) {
			return true
		}
	}
}

// claimWait is claim for wait number n only: it fails if that wait is over.
func (s *Session) claimWait(n, to uint64) bool {
	return s.wstate.CompareAndSwap(n<<waitShift|waiting, n<<waitShift|to)
}

// Close ends the session: a pending wait is cancelled, every job it reserved
// (including one handed to it but not yet taken) goes back to ready, and its
// tube references are dropped. The session must not be used afterwards.
func (s *Session) Close() {
	q := s.q
	s.mu.Lock()
	s.isClosed = true
	s.mu.Unlock()
	if s.claim(closed) {
		q.stats.add(s.stripe(), cWaiting, -1)
		s.unregisterWait(nil)
		q.timers.cancelSession(s)
	}
	s.releaseAll()
	// Drop the watched tubes in the order the reference's removals would
	// (the first, then the last moved into its place, and so on), without
	// writing to the list: it may be the shared default one.
	for i, n := 0, len(s.watch); i < n; i++ {
		k := 0
		if i > 0 {
			k = n - i
		}
		t := s.watch[k]
		addWatching(t, -1)
		q.releaseTube(t)
	}
	s.watch, s.sorted = nil, nil
	addUsing(s.use, -1)
	q.releaseTube(s.use)
	q.stats.add(s.stripe(), cConnections, -1)
	if s.producer {
		q.stats.add(s.stripe(), cProducers, -1)
	}
	if s.worker {
		q.stats.add(s.stripe(), cWorkers, -1)
	}
}

// releaseAll puts every job the session holds back to ready.
func (s *Session) releaseAll() {
	q := s.q
	for {
		s.mu.Lock()
		j := s.reserved.head
		var t *tube
		var id uint64
		if j != nil { // on the list: live, so these reads are safe here
			t, id = j.tube, j.id
		}
		s.mu.Unlock()
		if j == nil {
			return
		}
		var w wakeups
		t.mu.Lock()
		if q.stillLive(j, id) && j.state == Reserved && j.ext.reserver == s {
			now := q.clock.Now()
			if t.pol != nil {
				rc, took := t.pol.runRequeue(requeueCall{q: q, t: t, j: j, owner: s, why: byClose, now: now, st: s.stripe()})
				if took {
					if rc.err == nil {
						continue // the rule released t.mu; on a retry the job is still first
					}
					// The journal refused the rule's change: the job goes
					// back as usual, so that the loop ends.
					t.mu.Lock()
					if !q.stillLive(j, id) || j.state != Reserved || j.ext.reserver != s {
						t.mu.Unlock()
						continue
					}
				}
			}
			if q.replicated || t.countsReserves() {
				q.logRequeued(j, false)
			}
			q.unreserve(t, j, s.stripe())
			q.makeReady(t, j, now, s.stripe(), &w)
		}
		t.mu.Unlock()
		q.finish(&w)
	}
}
