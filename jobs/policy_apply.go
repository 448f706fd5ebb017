package jobs

// This file holds how a policy takes hold of a live tube.

// applyPolicy makes c (nil: none) the policy of live tube t, refilling its
// rate bucket. Takes t.mu.
func (q *Queue) applyPolicy(t *tube, c *compiled) {
	t.mu.Lock()
	t.pol = c
	t.fillBucket()
	t.mu.Unlock()
	q.tubeTimer(t, q.clock.Now()) // serve waiters a removed rate held back
}

// fillBucket starts t's reserve_rate bucket full. t.mu held (or t not yet
// published).
func (t *tube) fillBucket() {
	t.tokens, t.refilled = 0, unfilled
	if t.pol != nil {
		t.tokens = t.pol.burst
	}
}

// schedTimer is one schedule's timer in the timing wheels.
type schedTimer struct {
	e *policyEntry
	i int
}

// startSchedules arms e's schedules. setMu held.
func (q *Queue) startSchedules(e *policyEntry) {
	// Step 2 arms the schedules' timers.
	_ = e
}

// stopSchedules disarms e's schedules. setMu held.
func (q *Queue) stopSchedules(e *policyEntry) {
	_ = e
}

// full reports whether t's max_ready refuses a put. t.mu held, t.pol set.
func (t *tube) full() bool {
	n := t.pol.p.MaxReady
	return n > 0 && int64(t.ready.len())+int64(t.delayed.len()) >= int64(n)
}
