package jobs

// This file holds how a policy takes hold of a live tube.

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

// fillBucket starts t's reserve_rate bucket full. t.mu held (or t not yet
// published).
func (t *tube) fillBucket() {
	t.tokens, t.refilled = 0, unfilled
	if t.pol != nil {
		t.tokens = t.pol.burst
	}
}

// full reports whether t's max_ready refuses a put. t.mu held, t.pol set.
func (t *tube) full() bool {
	n := t.pol.p.MaxReady
	return n > 0 && int64(t.ready.len())+int64(t.delayed.len()) >= int64(n)
}
