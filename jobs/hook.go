package jobs

import (
	"math"
	"sync"

	"github.com/stalkd/stalkd/jobs/internal/cron"
)

// This file is the per-tube policy hook: a Policy compiled into the rules
// the queue runs at three points of a job's life. A tube without a policy
// has a nil t.pol and pays one nil check per operation; a tube with one
// runs only the rules its policy uses. Each kind of policy is a file with
// its rule and one line in ruleKinds below; put.go, reserve.go, timers.go
// and session.go call the hook points, never a kind:
//
//	admit    a new job (a put, a scheduled put) before it is stored:
//	         max_ready overflows (overflow.go)
//	entered  a job that joined the tube (stored by a put, or moved,
//	         dead-lettered or overflowed in): no rule uses it yet; it is
//	         where a per-job index or timer of a policy starts
//	requeue  a reserved job going back (released, timed out, buried, its
//	         session closed): max_reserves retires it (deadletter.go); a
//	         rule may also set the delay it goes back with
//
// reserve_rate holds the whole tube back from reserve (holdback.go) and
// schedules fire from their own timers (schedule.go): neither is a
// per-job event.

// compiled is a validated policy as the queue applies it: its value, its
// rate bucket, its parsed schedules, its counters and its rules. Immutable
// once built: tubes share it without a lock.
type compiled struct {
	p     Policy
	burst float64 // reserve_rate's bucket size: ceil(ReserveRate)
	rate  float64 // reserve_rate's refill, tokens a second; 0: no limit
	crons []cron.Schedule
	// ctr are the counters of the policy: the one object every compiled
	// value of that policy name shares, from set to removal.
	ctr *policyCounters

	admits   []admitter
	enters   []enterer
	requeues []requeuer
}

// The rules' faces, one per hook point. A rule implements those it needs.
type (
	// admitter sees a new job before it is stored, t.mu held. It returns
	// true when it disposed of the put itself: t.mu is then released and
	// pc's results are set.
	admitter interface{ admit(pc *putCall) bool }
	// enterer sees a job that joined tube t, t.mu held; pc is the put
	// that stored it, or nil (a move, a dead letter, a restore).
	enterer interface {
		entered(q *Queue, t *tube, j *job, pc *putCall)
	}
	// requeuer sees a reserved job about to go back, t.mu held. It
	// returns true when it took the job itself (t.mu released, rc's
	// results set); it may also change rc.delay and let the caller go on.
	requeuer interface{ requeue(rc *requeueCall) bool }
)

// ruleKinds compiles each kind of policy into its rule (nil: the policy
// does not use it), in the order the rules run at each hook point. A new
// kind adds its file and its line here; the rule implements the faces of
// the hook points it needs.
var ruleKinds = [...]func(c *compiled) any{
	compileOverflow,    // admit
	compileMaxReserves, // requeue
}

// compilePolicy validates p and compiles it.
func compilePolicy(p Policy) (*compiled, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	c := &compiled{p: p.Clone(), burst: math.Ceil(p.ReserveRate), rate: p.ReserveRate, ctr: &policyCounters{}}
	for _, s := range p.Schedule {
		cs, err := cron.ParseIn(s.Cron, s.TZ)
		if err != nil {
			return nil, err // not reached: Validate parsed it
		}
		c.crons = append(c.crons, cs)
	}
	for _, kind := range ruleKinds {
		r := kind(c)
		if r == nil {
			continue
		}
		if a, ok := r.(admitter); ok {
			c.admits = append(c.admits, a)
		}
		if e, ok := r.(enterer); ok {
			c.enters = append(c.enters, e)
		}
		if q, ok := r.(requeuer); ok {
			c.requeues = append(c.requeues, q)
		}
	}
	return c, nil
}

// putCall is a new job on its way into tube t, as the admit and entered
// rules see it.
type putCall struct {
	q    *Queue
	t    *tube
	j    *job
	now  int64
	mark schedMark // a scheduled put's mark; zero for a client's put
	ref  bool      // the caller holds a tube reference for the job (a scheduled put)
	st   int
	w    *wakeups
	wk   wakeups // w's storage for a client's put (putPolicied)

	// Results, when a rule disposed of the put (or added a record).
	id    uint64 // the id to answer: the job's, unless a rule answers another
	seq   uint64
	err   error
	moved bool // the job went to another tube (overflow's dead letter)
}

// admit runs the admit rules; true: one disposed of the put (t.mu
// released).
func (c *compiled) admit(pc *putCall) bool {
	for _, r := range c.admits {
		if r.admit(pc) {
			return true
		}
	}
	return false
}

// entered runs the entered rules for j, which joined t. t.mu held.
func (c *compiled) entered(q *Queue, t *tube, j *job, pc *putCall) {
	for _, r := range c.enters {
		r.entered(q, t, j, pc)
	}
}

// putCalls recycles the putCall (and wakeups) of a client's put into a
// tube with a policy: the rules see it through interfaces, so it would
// otherwise escape to the heap on every such put.
var putCalls = sync.Pool{New: func() any { return new(putCall) }}

// putPolicied is Session.Put past building new job j, for tube t whose
// policy is set: t.mu is held on entry and released on return.
func (q *Queue) putPolicied(t *tube, j *job, now int64, st int) (id, seq uint64, err error) {
	pc := putCalls.Get().(*putCall)
	*pc = putCall{q: q, t: t, j: j, now: now, st: st}
	pc.w = &pc.wk
	seq, err = q.putWithPolicy(pc) // unlocks t
	q.finish(pc.w)
	id = pc.id
	*pc = putCall{}
	putCalls.Put(pc)
	return id, seq, err
}

// putWithPolicy stores pc's new job in its tube, whose policy is set,
// through the admit and entered rules. t.mu is held on entry and released
// on return. It returns the sequence number to wait for (the put's, or a
// later record's).
func (q *Queue) putWithPolicy(pc *putCall) (uint64, error) {
	t, j := pc.t, pc.j
	c := t.pol
	pc.id = j.id
	if c.admit(pc) {
		return pc.seq, pc.err
	}
	seq, err := q.logNew(j, pc.mark)
	if err != nil {
		t.mu.Unlock()
		recycle(j)
		if pc.ref {
			q.releaseTube(t)
		}
		return 0, err
	}
	if !pc.ref {
		t.refs.Add(1) // the job's reference
	}
	q.insert(t, j, pc.now, pc.st, pc.w)
	pc.seq = seq
	c.entered(q, t, j, pc)
	t.mu.Unlock()
	return pc.seq, nil
}

// logNew logs new job j's put, with schedule mark m.
func (q *Queue) logNew(j *job, m schedMark) (uint64, error) {
	if q.journal == nil {
		return 0, nil
	}
	rec := j.record(RecPut)
	rec.Sched, rec.SchedAt = m.sched, m.at
	return q.journal.Append(rec)
}

// insert adds new job j, logged, to t: the index, the counters, and its
// heap (ready, or handed to a waiter) or delayed. t.mu held.
func (q *Queue) insert(t *tube, j *job, now int64, st int, w *wakeups) {
	q.jobs.put(j)
	q.stats.add(st, cHeldBytes, j.held())
	t.totalJobs++
	q.stats.add(st, cTotalJobs, 1)
	if j.state == Delayed {
		q.delay(t, j, st)
	} else {
		q.makeReady(t, j, now, st, w)
	}
}

// requeueWhy is how a reserved job goes back.
type requeueWhy uint8

const (
	byRelease requeueWhy = iota + 1 // its worker released it
	byTimeout                       // its TTR ran out
	byBury                          // its worker buried it
	byClose                         // its worker's session closed
)

// requeueCall is a reserved job going back, as the requeue rules see it.
type requeueCall struct {
	q     *Queue
	t     *tube
	j     *job
	owner *Session // the session it must still be reserved by; nil: the TTR timer
	why   requeueWhy
	now   int64
	st    int
	delay int64 // the release's delay (ns); a rule may set one

	// Results, when a rule took the job.
	seq   uint64
	err   error
	retry bool // the job or policy changed while locks were swapped: start again
}

// requeueCalls recycles the requeueCall the rules see (through
// interfaces, so it would escape to the heap on every requeue).
var requeueCalls = sync.Pool{New: func() any { return new(requeueCall) }}

// runRequeue runs the requeue rules on in and returns it with their
// results; took: one took the job (t.mu released). t.mu held.
func (c *compiled) runRequeue(in requeueCall) (out requeueCall, took bool) {
	rc := requeueCalls.Get().(*requeueCall)
	*rc = in
	took = c.requeue(rc)
	out = *rc
	*rc = requeueCall{}
	requeueCalls.Put(rc)
	return out, took
}

// requeue runs the requeue rules; true: one took the job (t.mu released).
func (c *compiled) requeue(rc *requeueCall) bool {
	for _, r := range c.requeues {
		if r.requeue(rc) {
			return true
		}
	}
	return false
}

// joined runs t's entered rules for j, which was moved, dead-lettered or
// overflowed into t, if t has a policy. t.mu held.
func (q *Queue) joined(t *tube, j *job) {
	if t.pol != nil {
		t.pol.entered(q, t, j, nil)
	}
}
