package embed

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
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
// those tubes), closing it if that fails. A policy the queue holds
// already is not written again.
func withPolicies(q *Queue) (*Queue, error) {
	ps := q.opts.Policies
	var errs []error
	for _, tube := range slices.Sorted(maps.Keys(ps)) {
		if cur, ok := q.Policy(tube); ok && reflect.DeepEqual(cur, ps[tube]) {
			continue
		}
		if err := q.SetPolicy(context.Background(), tube, ps[tube]); err != nil {
			errs = append(errs, fmt.Errorf("embed: policy of tube %q: %w", tube, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		_ = q.Close()
		return nil, err
	}
	return q, nil
}
