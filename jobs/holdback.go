package jobs

import (
	"math"
	"time"
)

// This file holds what holds a tube back from reserve: a pause (PauseTube,
// below, lifted by the tube's timer) and reserve_rate, a token bucket per
// tube on the queue's clock. A reserve from the tube (Reserve, or a hand-off to a waiting
// session) spends a token; the bucket holds at most ceil(rate) tokens and
// refills continuously at rate tokens per second. A tube without a token
// is held back like a paused one: Reserve skips it and its new ready jobs
// are not handed to waiters. When sessions wait on a held-back tube with
// ready jobs, the tube's timer (the one a pause uses) is armed for the next
// token, and the timer serves them then. ReserveJob (reserve-job by id)
// ignores the rate, as it ignores pauses.

// tokenEpsilon absorbs float rounding: a bucket this close to a whole token
// holds one, so that a timer armed for a token's arrival finds it.
const tokenEpsilon = 1e-9

// unfilled is tube.refilled for a bucket filled when the policy was set,
// counted from its first use.
const unfilled = math.MinInt64

// fillBucket starts t's reserve_rate bucket full. t.mu held (or t not yet
// published).
func (t *tube) fillBucket() {
	t.tokens, t.refilled = 0, unfilled
	if t.pol != nil {
		t.tokens = t.pol.burst
	}
}

// held reports whether reserve must skip t at now: paused, or out of
// reserve tokens. t.mu held.
func (t *tube) held(now int64) bool {
	return t.paused(now) || (t.pol != nil && t.throttled(now))
}

// throttled refills t's bucket at now and reports whether it lacks a
// token. t.mu held, t.pol set.
func (t *tube) throttled(now int64) bool {
	r := t.pol.p.ReserveRate
	if r == 0 {
		return false
	}
	if t.refilled == unfilled {
		t.refilled = now // fillBucket left it full as of now
	}
	if now > t.refilled {
		t.tokens = min(t.pol.burst, t.tokens+float64(now-t.refilled)*r/1e9)
		t.refilled = now
	}
	return t.tokens < 1-tokenEpsilon
}

// spend takes a token for one reserve from t. t.mu held.
func (t *tube) spend() {
	if t.pol != nil && t.pol.p.ReserveRate > 0 {
		t.tokens--
	}
}

// tokenAt returns when t's bucket next holds a whole token. t.mu held,
// after throttled reported true.
func (t *tube) tokenAt() int64 {
	need := 1 - t.tokens
	return t.refilled + int64(math.Ceil(need*1e9/t.pol.p.ReserveRate))
}

// armForToken arms t's timer for its next token if sessions wait on it with
// ready jobs held back only by the rate (a pause has its own timer, which
// re-arms this one when it ends). t.mu held.
func (q *Queue) armForToken(t *tube, now int64) {
	if t.pol == nil || t.ready.len() == 0 || len(t.waiters.items) == 0 || t.paused(now) || !t.throttled(now) {
		return
	}
	q.timers.scheduleTube(t, t.tokenAt())
}

// tubeTimer handles t's timer: a pause ending or a reserve token arriving.
// It serves t's waiters while it has ready jobs and may hand them out.
func (q *Queue) tubeTimer(t *tube, now int64) {
	var w wakeups
	t.mu.Lock()
	if t.pause > 0 && now >= t.unpauseAt {
		t.pause = 0
	}
	for t.ready.len() > 0 && len(t.waiters.items) > 0 && !t.held(now) {
		j := t.ready.pop()
		q.unready(t, j, 0)
		q.makeReady(t, j, now, 0, &w)
	}
	q.armForToken(t, now)
	t.mu.Unlock()
	q.finish(&w)
}

// rateLimited counts a reserve that found ready jobs only in tubes out of
// tokens and, if the session now waits, arms those tubes' token timers.
// Every tube in tubes is locked.
func (q *Queue) rateLimited(tubes []*tube, now int64, waiting bool) {
	for _, t := range tubes {
		if t.pol == nil || t.ready.len() == 0 || t.paused(now) || !t.throttled(now) {
			continue
		}
		t.pol.ctr.rateLimitedWaits.Add(1)
		if waiting {
			q.armForToken(t, now)
		}
	}
}

// PauseTube stops reserve from taking jobs of the tube called name for d. A
// zero d pauses for one nanosecond (waiters are served on the next tick).
// Pauses are not persisted (but replicated: see PauseTubeSeq), and vanish
// with the tube.
func (q *Queue) PauseTube(name []byte, d time.Duration) error {
	_, err := q.PauseTubeSeq(name, d)
	return err
}

// PauseTubeSeq is PauseTube returning the journal sequence number to wait
// for before answering PAUSED: nonzero only in replicated mode.
func (q *Queue) PauseTubeSeq(name []byte, d time.Duration) (uint64, error) {
	t, err := q.namedTube(name)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		d = 1
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	unpauseAt := q.clock.Now() + int64(d)
	var seq uint64
	if q.replicated {
		var err error
		if seq, err = q.append(Record{Kind: RecPause, Tube: t.name, Delay: d, Deadline: unpauseAt}); err != nil {
			return 0, err
		}
	}
	t.pause = int64(d)
	t.unpauseAt = unpauseAt
	t.pauses++
	q.timers.scheduleTube(t, t.unpauseAt)
	return seq, nil
}
