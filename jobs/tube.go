package jobs

import (
	"sync"
	"sync/atomic"

	"github.com/stalkd/stalkd/jobs/internal/tubename"
	"github.com/stalkd/stalkd/jobs/internal/wheel"
)

// tube is a named queue. mu guards every field below it; name and serial
// never change. A tube lives while something references it (a session using
// or watching it, or a job in it); refs counts those, and the registry drops
// the tube the moment refs reaches zero.
type tube struct {
	name   string
	serial uint64       // creation order; tube locks are taken in serial order
	refs   atomic.Int64 // using + watching + jobs (+1 for default)

	mu       sync.Mutex
	ready    jobHeap // by (pri, id)
	delayed  jobHeap // by (deadline, id)
	buried   jobList
	waiters  waitSet // sessions blocked in reserve that watch this tube
	urgent   int64   // ready jobs with pri < UrgentPri
	reserved int64
	using    int64
	watching int64

	pause     int64 // ns; 0 when not paused
	unpauseAt int64
	timer     wheel.Timer[*tube]

	totalJobs, deletes, pauses uint64

	// pol is the tube's policy (nil: none, the common case, which costs a
	// nil check); tokens and refilled are its reserve_rate bucket (tokens
	// as of refilled, Clock ns).
	pol      *compiled
	tokens   float64
	refilled int64

	listIdx int  // position in registry.list; guarded by registry.mu
	dead    bool // removed from the registry; guarded by registry.mu
}

func newTube(name string, serial uint64) *tube {
	t := &tube{name: name, serial: serial}
	t.delayed.byDeadline = true
	t.timer.Owner = t
	return t
}

// paused reports whether reserve must skip the tube at now.
func (t *tube) paused(now int64) bool { return t.pause > 0 && now < t.unpauseAt }

// waitSet is the reference's "ms" set of waiting sessions: append at the end,
// removal moves the last item into the hole, and take serves round-robin from
// a moving cursor. Four waiters are therefore served w1, w2, w4, w3, as the
// reference does.
type waitSet struct {
	items []*Session
	last  int
}

func (w *waitSet) add(s *Session) { w.items = append(w.items, s) }

func (w *waitSet) deleteAt(i int) {
	n := len(w.items) - 1
	w.items[i] = w.items[n]
	w.items[n] = nil
	w.items = w.items[:n]
}

func (w *waitSet) remove(s *Session) {
	for i, x := range w.items {
		if x == s {
			w.deleteAt(i)
			return
		}
	}
}

func (w *waitSet) take() *Session {
	if len(w.items) == 0 {
		return nil
	}
	w.last %= len(w.items)
	s := w.items[w.last]
	w.deleteAt(w.last)
	w.last++
	return s
}

// servedAtOnce moves the cursor as the reference does for a reserve that
// finds a job at once: it serves that reserve as a waiter too, appended to
// the set and taken by ms_take, which leaves the cursor one past it. A tube
// with a ready job has no other waiter, so the cursor ends at 1. (The other
// watched tubes' sets lose it again from their end: no change there.)
func (w *waitSet) servedAtOnce() { w.last = len(w.items) + 1 }

// registry holds every live tube by name and in listing order. Its lock is
// taken alone, or under no tube lock; refs changes from zero only under it.
type registry struct {
	mu     sync.RWMutex
	byName map[string]*tube
	list   []*tube
	serial uint64
	peak   int // most tubes since byName was last rebuilt
	// policyOf returns the policy a new tube of that name starts with
	// (Queue.pols.lookup, a leaf lock taken under mu).
	policyOf func(name string) *compiled
}

// minRegistryShrink: below this many tubes at its peak the registry never
// rebuilds its map (Go maps do not shrink by themselves).
const minRegistryShrink = 1024

// acquire returns the tube called name, creating it if needed, with one more
// reference taken for the caller.
func (r *registry) acquire(name []byte) *tube {
	r.mu.RLock()
	t := r.byName[string(name)]
	if t != nil {
		t.refs.Add(1)
	}
	r.mu.RUnlock()
	if t != nil {
		return t
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if t = r.byName[string(name)]; t != nil {
		t.refs.Add(1)
		return t
	}
	r.serial++
	t = newTube(string(name), r.serial)
	if r.policyOf != nil {
		t.pol = r.policyOf(t.name) // t is not yet published: no lock needed
		t.fillBucket()
	}
	t.refs.Store(1)
	t.listIdx = len(r.list)
	r.list = append(r.list, t)
	r.byName[t.name] = t
	r.peak = max(r.peak, len(r.list))
	return t
}

// hold returns the existing tube called name with one more reference taken
// for the caller (release it with Queue.releaseTube), or nil: unlike
// acquire, it never creates a tube.
func (r *registry) hold(name []byte) *tube {
	r.mu.RLock()
	t := r.byName[string(name)]
	if t != nil {
		t.refs.Add(1)
	}
	r.mu.RUnlock()
	return t
}

// namedTube returns the existing tube called name: ErrBadTubeName for a name
// outside the grammar, ErrNotFound for one no tube has.
func (q *Queue) namedTube(name []byte) (*tube, error) {
	if !validName(name) {
		return nil, ErrBadTubeName
	}
	if t := q.tubes.find(name); t != nil {
		return t, nil
	}
	return nil, ErrNotFound
}

// find returns the tube called name without taking a reference, or nil.
func (r *registry) find(name []byte) *tube {
	r.mu.RLock()
	t := r.byName[string(name)]
	r.mu.RUnlock()
	return t
}

// release drops one reference; the last one removes the tube (listing order:
// the last tube moves into its place) and reports it, so that the caller can
// cancel its pause timer.
func (r *registry) release(t *tube) (removed bool) {
	if t.refs.Add(-1) != 0 {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if t.refs.Load() != 0 || t.dead {
		return false
	}
	t.dead = true
	delete(r.byName, t.name)
	n := len(r.list) - 1
	moved := r.list[n]
	r.list[t.listIdx] = moved
	moved.listIdx = t.listIdx
	r.list[n] = nil
	r.list = r.list[:n]
	r.shrink()
	return true
}

// shrink rebuilds the map and list once the tubes fell below a quarter of
// their peak, so that 100k tubes come and gone do not keep their table.
// r.mu held.
func (r *registry) shrink() {
	n := len(r.list)
	if r.peak < minRegistryShrink || n >= r.peak/4 {
		return
	}
	m := make(map[string]*tube, n)
	for _, t := range r.list {
		m[t.name] = t
	}
	r.byName = m
	r.list = append(make([]*tube, 0, n*2), r.list...)
	r.peak = n
}

func (r *registry) names(dst []string) []string {
	r.mu.RLock()
	for _, t := range r.list {
		dst = append(dst, t.name)
	}
	r.mu.RUnlock()
	return dst
}

func (r *registry) count() int {
	r.mu.RLock()
	n := len(r.list)
	r.mu.RUnlock()
	return n
}

// ValidTubeName reports whether name is a legal tube name: 1 to
// MaxTubeName bytes of A-Z a-z 0-9 - + / ; . $ _ ( ), not starting with '-'.
// It is the protocol's grammar (package codec has the same rule, and a test
// keeps the two equal byte for byte).
func ValidTubeName(name []byte) bool { return tubename.Valid(name) }

// validName reports whether name follows the protocol's tube-name grammar.
func validName(name []byte) bool { return tubename.Valid(name) }
