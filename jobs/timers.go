package jobs

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stalkd/stalkd/jobs/internal/wheel"
)

const (
	timerShards = 4
	// Resolution is the timing wheels' tick: the granularity of their slots.
	// A timer never fires before its deadline, and fires on the first
	// advance at or after it; Run wakes within about this much of it.
	Resolution = time.Millisecond
)

// timers holds every timer of the queue in a few sharded hierarchical
// wheels: job delays and TTRs, session waits, tube pauses. A shard lock is a
// leaf taken under a tube lock (to arm or cancel) and alone (to advance); a
// fired timer's action runs after every shard lock is released.
type timers struct {
	shards     [timerShards]timerShard
	fireMu     sync.Mutex // one firing pass at a time; guards the buffers
	firedJobs  []firedJob
	firedSess  []firedSession
	firedTubes []firedTube
	firedSched []firedSched
	schedBuf   []*schedTimer
	kick       chan struct{}
	sleepUntil atomic.Int64 // when the driver next wakes on its own; MaxInt64 while it plans
}

type timerShard struct {
	mu          sync.Mutex
	jobs        *wheel.Wheel[*job]
	sessions    *wheel.Wheel[*Session]
	tubes       *wheel.Wheel[*tube]
	scheds      *wheel.Wheel[*schedTimer] // shard 0 only: schedules are few
	scratch     []*job
	tubeScratch []*tube
	sessScratch []*Session
	_           [64]byte
}

type firedJob struct {
	j    *job
	t    *tube  // read with id under the timer shard lock, while the job
	id   uint64 // was surely live (see recycle.go)
	when int64
}

type firedSession struct {
	s    *Session
	wait uint64 // the wait the timer was armed for
	when int64
}

type firedSched struct {
	st   *schedTimer
	when int64
}

type firedTube struct {
	t    *tube
	when int64
}

func (ts *timers) init(now int64) {
	for i := range ts.shards {
		s := &ts.shards[i]
		s.jobs = wheel.New[*job](now, Resolution)
		s.sessions = wheel.New[*Session](now, Resolution)
		s.tubes = wheel.New[*tube](now, Resolution)
		s.scheds = wheel.New[*schedTimer](now, Resolution)
	}
	ts.kick = make(chan struct{}, 1)
	ts.sleepUntil.Store(now)
}

func (ts *timers) scheduleJob(j *job, when int64) {
	s := &ts.shards[j.id%timerShards]
	s.mu.Lock()
	s.jobs.Schedule(&j.ext.timer, when)
	s.mu.Unlock()
	ts.poke(when)
}

func (ts *timers) cancelJob(j *job) {
	s := &ts.shards[j.id%timerShards]
	s.mu.Lock()
	if j.ext != nil {
		s.jobs.Cancel(&j.ext.timer)
	}
	s.mu.Unlock()
}

// scheduleSession arms x's timer for its wait number wait.
func (ts *timers) scheduleSession(x *Session, when int64, wait uint64) {
	s := &ts.shards[x.id%timerShards]
	s.mu.Lock()
	x.w.timerWait = wait
	s.sessions.Schedule(&x.w.timer, when)
	s.mu.Unlock()
	ts.poke(when)
}

// cancelSession disarms x's timer. Called by the owner, or by the winner of
// a wait (so x.w is set).
func (ts *timers) cancelSession(x *Session) {
	s := &ts.shards[x.id%timerShards]
	s.mu.Lock()
	s.sessions.Cancel(&x.w.timer)
	s.mu.Unlock()
}

func (ts *timers) scheduleTube(t *tube, when int64) {
	s := &ts.shards[t.serial%timerShards]
	s.mu.Lock()
	s.tubes.Schedule(&t.timer, when)
	s.mu.Unlock()
	ts.poke(when)
}

func (ts *timers) cancelTube(t *tube) {
	s := &ts.shards[t.serial%timerShards]
	s.mu.Lock()
	s.tubes.Cancel(&t.timer)
	s.mu.Unlock()
}

// scheduleSched arms a schedule's timer (on shard 0), cancelSched disarms it.
func (ts *timers) scheduleSched(x *schedTimer, when int64) {
	s := &ts.shards[0]
	s.mu.Lock()
	s.scheds.Schedule(&x.timer, when)
	s.mu.Unlock()
	ts.poke(when)
}

func (ts *timers) cancelSched(x *schedTimer) {
	s := &ts.shards[0]
	s.mu.Lock()
	s.scheds.Cancel(&x.timer)
	s.mu.Unlock()
}

// poke wakes the driver if a timer was armed before its planned wake-up.
func (ts *timers) poke(when int64) {
	if when < ts.sleepUntil.Load() {
		select {
		case ts.kick <- struct{}{}:
		default:
		}
	}
}

// next returns the earliest time any wheel may have something due.
func (ts *timers) next() (int64, bool) {
	var best int64
	found := false
	for i := range ts.shards {
		s := &ts.shards[i]
		s.mu.Lock()
		a, okA := s.jobs.Next()
		b, okB := s.sessions.Next()
		c, okC := s.tubes.Next()
		d, okD := s.scheds.Next()
		s.mu.Unlock()
		for _, x := range [...]struct {
			t  int64
			ok bool
		}{{a, okA}, {b, okB}, {c, okC}, {d, okD}} {
			if x.ok && (!found || x.t < best) {
				best, found = x.t, true
			}
		}
	}
	return best, found
}

// Tick fires every timer due at the clock's current time. Run calls it; tests
// call it after moving a ManualClock.
func (q *Queue) Tick() { q.fire(q.clock.Now()) }

// testHookRunIdle, set by tests only, runs in Run after it has read the
// next deadline and before it sleeps.
var testHookRunIdle func()

// Run drives the queue's timers from its clock until ctx is done, sleeping
// until the next deadline. One Run per queue.
func (q *Queue) Run(ctx context.Context) {
	ts := &q.timers
	tm := time.NewTimer(time.Hour)
	defer tm.Stop()
	for {
		now := q.clock.Now()
		q.fire(now)
		q.Flush() // what the timers changed goes to the journal now, not with the next command
		// While next reads the shards one by one, a timer armed in a shard
		// it has passed would go unseen: until the sleep is planned, every
		// arming kicks the driver.
		ts.sleepUntil.Store(math.MaxInt64)
		d := time.Hour
		if next, ok := ts.next(); ok {
			d = max(time.Duration(next-now), Resolution/4)
			d = min(d, time.Hour)
		}
		if testHookRunIdle != nil {
			testHookRunIdle()
		}
		ts.sleepUntil.Store(now + int64(d))
		tm.Reset(d)
		select {
		case <-ctx.Done():
			return
		case <-tm.C:
		case <-ts.kick: // Reset above discards a pending expiry (Go 1.23 timers)
		}
	}
}

// fire advances every wheel to now and runs what came due: job timers
// (delays ending, TTRs running out) in (deadline, id) order - the order of a
// tube's delay heap, so equal deadlines do not depend on timer shards or on
// arming order - then pauses ending in (deadline, tube creation) order, then
// waits ending in (deadline, session) order. Every one of these orders is
// observable (hand-offs; removals from waiter sets move their last item),
// so none may depend on which shard a timer sits in.
func (q *Queue) fire(now int64) {
	ts := &q.timers
	ts.fireMu.Lock()
	defer ts.fireMu.Unlock()
	jobsDue, sess, tubes := ts.firedJobs[:0], ts.firedSess[:0], ts.firedTubes[:0]
	scheds := ts.firedSched[:0]
	for i := range ts.shards {
		s := &ts.shards[i]
		s.mu.Lock()
		s.scratch = s.jobs.Advance(now, s.scratch[:0])
		for _, j := range s.scratch {
			jobsDue = append(jobsDue, firedJob{j, j.tube, j.id, j.ext.timer.When()})
		}
		s.tubeScratch = s.tubes.Advance(now, s.tubeScratch[:0])
		for _, t := range s.tubeScratch {
			tubes = append(tubes, firedTube{t, t.timer.When()})
		}
		if s.scheds.Len() > 0 { // schedules are rare: most queues have none
			ts.schedBuf = s.scheds.Advance(now, ts.schedBuf[:0])
			for _, x := range ts.schedBuf {
				scheds = append(scheds, firedSched{x, x.timer.When()})
			}
			clear(ts.schedBuf)
		}
		s.sessScratch = s.sessions.Advance(now, s.sessScratch[:0])
		for _, x := range s.sessScratch {
			sess = append(sess, firedSession{x, x.w.timerWait, x.w.timer.When()})
		}
		s.mu.Unlock()
	}
	slices.SortFunc(jobsDue, func(a, b firedJob) int {
		return cmp.Or(cmp.Compare(a.when, b.when), cmp.Compare(a.id, b.id))
	})
	slices.SortFunc(tubes, func(a, b firedTube) int {
		return cmp.Or(cmp.Compare(a.when, b.when), cmp.Compare(a.t.serial, b.t.serial))
	})
	slices.SortFunc(scheds, func(a, b firedSched) int {
		return cmp.Or(cmp.Compare(a.when, b.when), cmp.Compare(a.st.e.tube, b.st.e.tube), cmp.Compare(a.st.i, b.st.i))
	})
	slices.SortFunc(sess, func(a, b firedSession) int {
		return cmp.Or(cmp.Compare(a.when, b.when), cmp.Compare(a.s.id, b.s.id))
	})
	for _, f := range jobsDue {
		q.jobTimer(f.t, f.j, f.id, now)
	}
	for _, f := range tubes {
		q.tubeTimer(f.t, now)
	}
	for _, f := range scheds {
		q.schedTimer(f.st, now)
	}
	for _, f := range sess {
		q.sessionTimer(f.s, f.wait)
	}
	clear(jobsDue)
	clear(sess)
	clear(tubes)
	clear(scheds)
	ts.firedJobs, ts.firedSess, ts.firedTubes = keep(jobsDue), keep(sess), keep(tubes)
	ts.firedSched = keep(scheds)
}

// jobTimer handles a job's timer: a delay ending, or a TTR running out. A
// timer that lost a race (the job was touched, released, deleted) finds the
// job no longer due and does nothing.
func (q *Queue) jobTimer(t *tube, j *job, id uint64, now int64) {
	var w wakeups
	t.mu.Lock()
	if !q.stillLive(j, id) {
		t.mu.Unlock()
		return
	}
	switch {
	case j.state == Delayed && now >= j.ext.deadline:
		t.delayed.remove(j)
		q.stats.add(0, cDelayed, -1)
		q.makeReady(t, j, now, 0, &w)
	case j.state == Reserved && now > j.ext.deadline:
		var delay int64
		if t.pol != nil {
			rc, took := t.pol.runRequeue(requeueCall{q: q, t: t, j: j, why: byTimeout, now: now})
			if took {
				if rc.retry {
					q.jobTimer(t, j, id, now)
				}
				return // the rule released t.mu (and a failed journal fails later commits)
			}
			delay = rc.delay
		}
		q.timeOut(t, j, now, delay, &w)
	}
	t.mu.Unlock()
	q.finish(&w)
}

// timeOut gives back reserved job j of t, whose TTR ran out: ready, or
// delayed by delay (a policy's backoff), which is then journaled so that a
// restart keeps it. t.mu held.
func (q *Queue) timeOut(t *tube, j *job, now, delay int64, w *wakeups) {
	x := j.ext
	if delay > 0 {
		rec := j.record(RecUpdate)
		rec.Timeouts++
		rec.State, rec.Delay, rec.Deadline = Delayed, durationOf(delay), now+delay
		_, _ = q.append(rec) // a failed journal fails every later commit
	} else if q.replicated || t.countsReserves() {
		q.logRequeued(j, true)
	}
	q.unreserve(t, j, 0)
	x.timeouts++
	q.stats.add(0, cTimeouts, 1)
	if delay > 0 {
		x.delay = delay
		j.state, x.deadline = Delayed, now+delay
		q.delay(t, j, 0)
		return
	}
	q.makeReady(t, j, now, 0, w)
}

// keepFired: a firing buffer longer than this is dropped after use, so that
// a million timers firing at once do not keep their buffer for good.
const keepFired = 4096

func keep[T any](buf []T) []T {
	if cap(buf) > keepFired {
		return nil
	}
	return buf[:0]
}
