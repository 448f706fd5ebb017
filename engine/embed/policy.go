package embed

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/stalkd/stalkd/jobs"
)

// Tube policies: dead letters, a cap on a tube's length, a cap
// on its reserve rate and recurring puts, kept by the queue core (package
// jobs) and journaled like every other change. The types are the core's,
// repeated here so that an embedder need not import package jobs.
type (
	// Policy is a tube's policy; every field is optional (see jobs.Policy).
	Policy = jobs.Policy
	// Schedule is one recurring put of a Policy.
	Schedule = jobs.Schedule
	// PolicyError is a refused policy: the field at fault and why.
	PolicyError = jobs.PolicyError
	// Overflow is what a put over a policy's MaxReady gets.
	Overflow = jobs.Overflow
	// PolicyChange is one tube's policy before and after a ReplacePolicies.
	PolicyChange = jobs.PolicyChange
)

// The overflow modes of a Policy: refuse the put (ErrQueueFull), store
// the job buried (ErrBuried with its id) or put it into the policy's
// DeadLetter tube.
const (
	OverflowReject     = jobs.OverflowReject
	OverflowBury       = jobs.OverflowBury
	OverflowDeadLetter = jobs.OverflowDeadLetter
)

// SetPolicy gives tube the policy p, replacing the one it had, and returns
// once the change is as durable as the fsync policy promises (as Put
// does). The tube need not exist: the policy applies whenever it does. A
// policy that Validate refuses is an error wrapping *PolicyError, and
// nothing of it is applied. Safe for concurrent use.
func (q *Queue) SetPolicy(ctx context.Context, tube string, p Policy) error {
	if q.closed.Load() {
		return ErrClosed
	}
	seq, err := q.jq.SetPolicySeq(tube, p)
	if err != nil {
		return err
	}
	q.noteSeq(seq)
	return q.commits.Wait(ctx, seq, q.closing)
}

// Policy returns tube's policy and whether it has one.
func (q *Queue) Policy(tube string) (Policy, bool) { return q.jq.Policy(tube) }

// Policies returns every policy by tube name (a copy).
func (q *Queue) Policies() map[string]Policy { return q.jq.Policies() }

// RemovePolicy removes tube's policy, reporting whether it had one, and
// returns once the removal is durable.
func (q *Queue) RemovePolicy(ctx context.Context, tube string) (bool, error) {
	if q.closed.Load() {
		return false, ErrClosed
	}
	removed, seq, err := q.jq.RemovePolicySeq(tube)
	if err != nil || !removed {
		return removed, err
	}
	q.noteSeq(seq)
	return true, q.commits.Wait(ctx, seq, q.closing)
}

// ReplacePolicies makes set the queue's policies exactly, in one change
// (one journal record): tubes in set get their policy, every other tube
// loses its own. It reports what changed, tube by tube, and returns once
// the change is as durable as the fsync policy promises. The whole set is
// checked first (names, each policy, dead-letter cycles: see
// jobs.CheckPolicies); a refused set changes nothing. Safe for concurrent
// use.
func (q *Queue) ReplacePolicies(ctx context.Context, set map[string]Policy) ([]PolicyChange, error) {
	if q.closed.Load() {
		return nil, ErrClosed
	}
	changes, seq, err := q.jq.ReplacePoliciesSeq(set)
	if err != nil || len(changes) == 0 {
		return changes, err
	}
	q.noteSeq(seq)
	return changes, q.commits.Wait(ctx, seq, q.closing)
}

// validatePolicies checks Options.Policies whole, before Open changes
// anything: names, each policy, and the rules across tubes
// (jobs.CheckPolicies: no dead letter naming its own tube, no dead-letter
// cycle).
func validatePolicies(ps map[string]Policy) error {
	for _, tube := range slices.Sorted(maps.Keys(ps)) {
		if !jobs.ValidTubeName([]byte(tube)) {
			return fmt.Errorf("embed: Options.Policies: %q: %w", tube, ErrBadTubeName)
		}
	}
	if err := jobs.CheckPolicies(ps); err != nil {
		return fmt.Errorf("embed: Options.Policies: %w", err)
	}
	return nil
}

// withPolicies applies Options.Policies to a queue Open has just started
// (after its journal was replayed, so they win over what it held for
// those tubes; other tubes keep theirs), closing it if that fails. It is
// ReplacePolicies with the journal's set overlaid: one change, and none
// when the queue holds them already.
func withPolicies(q *Queue) (*Queue, error) {
	if len(q.opts.Policies) == 0 {
		return q, nil
	}
	set := q.Policies()
	maps.Copy(set, q.opts.Policies)
	if _, err := q.ReplacePolicies(context.Background(), set); err != nil {
		_ = q.Close()
		return nil, fmt.Errorf("embed: Options.Policies: %w", err)
	}
	return q, nil
}
