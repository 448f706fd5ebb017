package jobs

import (
	"reflect"
	"sync"
)

// policies holds every tube policy by tube name, whether or not the tube
// exists. setMu serializes the changes (set, remove, restore, a schedule
// firing) and is taken first, before any other queue lock; mu is a leaf
// guarding byName, taken under the registry lock when a tube is created.
type policies struct {
	setMu  sync.Mutex
	mu     sync.Mutex
	byName map[string]*policyEntry
}

// policyEntry is one tube name's policy and its schedules' progress. c is
// immutable; fired, ran and timers are guarded by policies.setMu.
type policyEntry struct {
	tube   string
	c      *compiled
	fired  []int64 // last fire time per schedule (Clock ns); when set, the time it counts from
	ran    []bool  // per schedule: fired is a time it fired at (schedule_runs.go)
	timers []*schedTimer
}

// lookup returns the compiled policy of name, or nil. Leaf.
func (ps *policies) lookup(name string) *compiled {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if e := ps.byName[name]; e != nil {
		return e.c
	}
	return nil
}

// SetPolicy sets the policy of the tube called tube (which need not exist
// yet), replacing any earlier one, without waiting for the journal: see
// SetPolicySeq. A zero Policy removes the tube's policy.
func (q *Queue) SetPolicy(tube string, p Policy) error {
	_, err := q.SetPolicySeq(tube, p)
	return err
}

// SetPolicySeq is SetPolicy returning the journal sequence number to wait
// for (Queue.Committed) before acknowledging it. The policy is validated
// with the other tubes' policies (CheckPolicies: a *PolicyError names the
// tube and the field; a dead-letter cycle of any length is refused, the
// cycle spelled in the reason), journaled, then applied: an error leaves
// everything as it was. A schedule whose cron, tz and body the previous
// policy already had keeps its progress; a new one counts from now. Setting
// the policy a tube already has changes nothing (and returns 0). Safe for
// concurrent use; it must not be called from a wake function.
func (q *Queue) SetPolicySeq(tube string, p Policy) (uint64, error) {
	_, seq, err := q.UpdatePolicySeq(tube, func(Policy, bool) (Policy, error) { return p, nil })
	return seq, err
}

// UpdatePolicySeq sets the policy of the tube called tube to what fn makes
// of its current one (a copy; the zero Policy and false when it has none),
// atomically: no other change to the queue's policies lands between the
// read and the write. It returns the policy set and the sequence number to
// wait for, as SetPolicySeq (a zero result removes the policy). An error
// from fn is returned as it is, and nothing changes. fn runs with the
// queue's policy lock held: it must be pure and quick, and must not call
// the queue (MergePolicyPatch is such a function); it may be called more
// than once. Safe for concurrent use; it must not be called from a wake
// function.
func (q *Queue) UpdatePolicySeq(tube string, fn func(cur Policy, ok bool) (Policy, error)) (Policy, uint64, error) {
	if !validName([]byte(tube)) {
		return Policy{}, 0, &PolicyError{Field: "tube", Reason: "not a valid tube name"}
	}
	// Resolve the result's time zones before taking the lock: a zone's
	// first use may read the host's zoneinfo, which schedules firing under
	// the lock should not wait for.
	if p, err := fn(q.Policy(tube)); err == nil {
		_, _ = compilePolicy(p)
	}
	ps := &q.pols
	ps.setMu.Lock()
	defer q.servePolicyTube(tube) // runs after the unlock below
	defer ps.setMu.Unlock()
	old := ps.byName[tube] // setMu held: no one else writes byName
	var cur Policy
	if old != nil {
		cur = old.c.p.Clone()
	}
	p, err := fn(cur, old != nil)
	if err != nil {
		return Policy{}, 0, err
	}
	if p.IsZero() {
		seq, err := q.removeLocked(tube, old)
		return Policy{}, seq, err
	}
	c, err := checkPolicy(tube, p)
	if err != nil {
		return Policy{}, 0, err
	}
	if old != nil && reflect.DeepEqual(old.c.p, c.p) {
		return c.p.Clone(), 0, nil
	}
	if err := q.checkWith(tube, c.p); err != nil {
		return Policy{}, 0, err
	}
	e := q.newEntry(tube, c, old)
	// The record gets its own copy of the progress: schedules update e.fired
	// while the journal may still hold the record.
	pr := &PolicyRecord{Policy: e.c.p, Fired: append([]int64(nil), e.fired...)}
	seq, err := q.append(Record{Kind: RecPolicy, Tube: tube, Policy: pr})
	if err != nil {
		return Policy{}, 0, err
	}
	q.installPolicy(tube, old, e)
	return c.p.Clone(), seq, nil
}

// checkWith checks the current policies with tube's replaced by p, whole
// (CheckPolicies: a dead letter naming its own tube, cycles of any
// length), and reports the first fault as a *PolicyError. setMu held.
func (q *Queue) checkWith(tube string, p Policy) error {
	ps := &q.pols
	set := make(map[string]Policy, len(ps.byName)+1)
	for name, e := range ps.byName {
		set[name] = e.c.p
	}
	set[tube] = p
	return CheckPolicies(set)
}

// newEntry builds tube's entry for compiled policy c, replacing old (nil:
// none): c shares old's counters, and a schedule whose cron, tz and body
// old had keeps its progress (a new one counts from now). setMu held.
func (q *Queue) newEntry(tube string, c *compiled, old *policyEntry) *policyEntry {
	now := q.clock.Now()
	e := &policyEntry{tube: tube, c: c, fired: make([]int64, len(c.p.Schedule)), ran: make([]bool, len(c.p.Schedule))}
	if old != nil {
		c.ctr = old.c.ctr
	}
	for i, s := range c.p.Schedule {
		e.fired[i] = now
		if old != nil {
			for k, o := range old.c.p.Schedule {
				if o.Cron == s.Cron && o.TZ == s.TZ && o.Body == s.Body {
					e.fired[i], e.ran[i] = old.fired[k], old.ran[k]
				}
			}
		}
	}
	return e
}

// CheckPolicy reports whether a queue's SetPolicy would take p for the
// tube called tube, by the rules of the policy alone (no queue's state;
// CheckPolicies checks a whole set, cycles included): a *PolicyError
// naming the field, or nil. Safe for concurrent use.
func CheckPolicy(tube string, p Policy) error {
	if !validName([]byte(tube)) {
		return &PolicyError{Field: "tube", Reason: "not a valid tube name"}
	}
	if p.IsZero() {
		return nil
	}
	_, err := checkPolicy(tube, p)
	return err
}

// checkPolicy validates p for tube and compiles it.
func checkPolicy(tube string, p Policy) (*compiled, error) {
	c, err := compilePolicy(p)
	if err != nil {
		return nil, err
	}
	if p.DeadLetter == tube {
		return nil, &PolicyError{Field: "dead_letter", Reason: "is the tube itself"}
	}
	return c, nil
}

// RemovePolicy removes the policy of the tube called tube; removed is false
// if it had none. See RemovePolicySeq.
func (q *Queue) RemovePolicy(tube string) (removed bool, err error) {
	removed, _, err = q.RemovePolicySeq(tube)
	return removed, err
}

// RemovePolicySeq is RemovePolicy returning the journal sequence number to
// wait for (0 when there was nothing to remove).
func (q *Queue) RemovePolicySeq(tube string) (removed bool, seq uint64, err error) {
	if !validName([]byte(tube)) {
		return false, 0, &PolicyError{Field: "tube", Reason: "not a valid tube name"}
	}
	ps := &q.pols
	ps.setMu.Lock()
	defer q.servePolicyTube(tube) // runs after the unlock below
	defer ps.setMu.Unlock()
	old := ps.byName[tube]
	seq, err = q.removeLocked(tube, old)
	return old != nil && err == nil, seq, err
}

// removeLocked removes old, tube's policy (nil: nothing to do). setMu held.
func (q *Queue) removeLocked(tube string, old *policyEntry) (uint64, error) {
	if old == nil {
		return 0, nil
	}
	seq, err := q.append(Record{Kind: RecPolicy, Tube: tube})
	if err != nil {
		return 0, err
	}
	q.installPolicy(tube, old, nil)
	return seq, nil
}

// Policy returns a copy of the policy of the tube called tube.
func (q *Queue) Policy(tube string) (Policy, bool) {
	ps := &q.pols
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if e := ps.byName[tube]; e != nil {
		return e.c.p.Clone(), true
	}
	return Policy{}, false
}

// Policies returns a copy of every policy, by tube name.
func (q *Queue) Policies() map[string]Policy {
	ps := &q.pols
	ps.mu.Lock()
	defer ps.mu.Unlock()
	m := make(map[string]Policy, len(ps.byName))
	for name, e := range ps.byName {
		m[name] = e.c.p.Clone()
	}
	return m
}

// RestorePolicy installs a policy read back from the journal (the latest
// RecPolicy of its tube, with its schedules' progress), without logging.
// Schedules whose time passed while the queue was down fire once on the
// next Tick. fired may be shorter than the schedule list (missing entries
// count from now).
func (q *Queue) RestorePolicy(tube string, p Policy, fired []int64) error {
	if !validName([]byte(tube)) {
		return &PolicyError{Field: "tube", Reason: "not a valid tube name"}
	}
	c, err := compilePolicy(p)
	if err != nil {
		return err
	}
	ps := &q.pols
	ps.setMu.Lock()
	defer q.servePolicyTube(tube) // runs after the unlock below
	defer ps.setMu.Unlock()
	now := q.clock.Now()
	old := ps.byName[tube]
	if old != nil {
		c.ctr = old.c.ctr
	}
	e := &policyEntry{tube: tube, c: c, fired: make([]int64, len(c.p.Schedule)), ran: make([]bool, len(c.p.Schedule))}
	for i := range e.fired {
		e.fired[i] = now
		if i < len(fired) {
			e.fired[i] = fired[i]
			e.ran[i] = c.isTime(i, fired[i])
		}
	}
	q.installPolicy(tube, old, e)
	return nil
}

// RewritePolicies appends every policy again, with its schedules' current
// progress, and returns the last sequence number (compaction calls it before
// dropping the front of the log).
func (q *Queue) RewritePolicies() (seq uint64, err error) {
	ps := &q.pols
	ps.setMu.Lock()
	defer ps.setMu.Unlock()
	for name, e := range ps.byName {
		pr := &PolicyRecord{Policy: e.c.p, Fired: append([]int64(nil), e.fired...)}
		if seq, err = q.append(Record{Kind: RecPolicy, Tube: name, Policy: pr}); err != nil {
			return 0, err
		}
	}
	return seq, nil
}

// installPolicy replaces old with e (nil: removes) for tube name: in the
// map, on the tube if it exists, and in the schedule timers. setMu held.
func (q *Queue) installPolicy(name string, old, e *policyEntry) {
	ps := &q.pols
	ps.mu.Lock()
	if ps.byName == nil {
		ps.byName = make(map[string]*policyEntry)
	}
	var c *compiled
	if e == nil {
		delete(ps.byName, name)
	} else {
		ps.byName[name] = e
		c = e.c
	}
	ps.mu.Unlock()
	if old != nil {
		q.stopSchedules(old)
	}
	if e != nil {
		q.startSchedules(e)
	}
	// A tube created from here on reads the map; one that exists already
	// is found by name and updated under its lock.
	if t := q.tubes.hold([]byte(name)); t != nil {
		q.applyPolicy(t, c)
		q.releaseTube(t)
	}
}

// applyPolicy makes c (nil: none) the policy of live tube t, refilling its
// rate bucket. Takes t.mu.
func (q *Queue) applyPolicy(t *tube, c *compiled) {
	t.mu.Lock()
	t.pol = c
	t.fillBucket()
	t.mu.Unlock()
}

// servePolicyTube serves the waiters of the tube called name, if it exists,
// after its policy changed (a removed rate no longer holds its jobs back).
// No queue lock held: it may wake sessions.
func (q *Queue) servePolicyTube(name string) {
	if t := q.tubes.hold([]byte(name)); t != nil {
		q.tubeTimer(t, q.clock.Now())
		q.releaseTube(t)
	}
}

// full reports whether t's max_ready refuses a put. t.mu held, t.pol set.
func (t *tube) full() bool {
	n := t.pol.p.MaxReady
	return n > 0 && int64(t.ready.len())+int64(t.delayed.len()) >= int64(n)
}
