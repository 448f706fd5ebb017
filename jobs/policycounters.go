package jobs

import (
	"cmp"
	"slices"
	"sync/atomic"
)

// This file holds a policy's counters. They belong to the tube name's
// policy, not to the tube: they start at zero when a name gets a policy,
// carry over when the policy is replaced, and go when it is removed (or
// the process ends). A tube that empties and vanishes, or one that does
// not exist yet, keeps showing its policy's figures.

// policyCounters are a policy's counters, shared by every compiled value
// the tube name's policy has had since it was set. They are atomics: a
// tube increments them under its own lock, readers (PolicyStats,
// InspectTubes) read them without one.
type policyCounters struct {
	deadLettered, refusedFull, overflowed, rateLimitedWaits, scheduledPuts atomic.Uint64
}

// PolicyCounts are a policy's counters since the tube name got a policy
// (replacing it keeps them; removing it drops them). They are not part of
// the protocol's stats-tube (clients parse that).
type PolicyCounts struct {
	// DeadLettered: jobs that ran out of max_reserves (moved to the
	// dead-letter tube or buried).
	DeadLettered uint64
	// RefusedFull: puts refused because the tube was at max_ready
	// (overflow reject, or a dead-letter tube that was itself full).
	RefusedFull uint64
	// Overflowed: puts over max_ready that overflow stored anyway, buried
	// (overflow bury) or in the dead-letter tube (overflow dead_letter).
	Overflowed uint64
	// RateLimitedWaits: reserves that found a job held back by
	// reserve_rate.
	RateLimitedWaits uint64
	// ScheduledPuts: jobs the schedule put.
	ScheduledPuts uint64
}

// counts reads c (nil: zeros).
func (c *policyCounters) counts() PolicyCounts {
	if c == nil {
		return PolicyCounts{}
	}
	return PolicyCounts{
		DeadLettered: c.deadLettered.Load(), RefusedFull: c.refusedFull.Load(),
		Overflowed: c.overflowed.Load(), RateLimitedWaits: c.rateLimitedWaits.Load(),
		ScheduledPuts: c.scheduledPuts.Load(),
	}
}

// PolicyStat is one tube name's policy and its counters.
type PolicyStat struct {
	Tube   string
	Policy Policy
	PolicyCounts
}

// PolicyStats returns every policy with its counters, in tube name order,
// whether or not its tube exists. The result is the caller's. Safe for
// concurrent use; it takes only the policy map's leaf lock.
func (q *Queue) PolicyStats() []PolicyStat {
	ps := &q.pols
	ps.mu.Lock()
	out := make([]PolicyStat, 0, len(ps.byName))
	for name, e := range ps.byName {
		out = append(out, PolicyStat{Tube: name, Policy: e.c.p.Clone(), PolicyCounts: e.c.ctr.counts()})
	}
	ps.mu.Unlock()
	slices.SortFunc(out, func(a, b PolicyStat) int { return cmp.Compare(a.Tube, b.Tube) })
	return out
}
