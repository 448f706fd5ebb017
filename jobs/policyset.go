package jobs

import (
	"maps"
	"reflect"
	"slices"
)

// This file replaces the whole set of tube policies in one step: what a
// policy file (--policies) asks for, at start and on every reload. The
// set is checked whole before anything changes, and the change is one
// journal record (RecPolicySet), so that a crash leaves the old set or the
// new one, never a part.

// PolicyChange is one tube's change made by ReplacePoliciesSeq: Before is
// nil for a tube that had no policy, After nil for one that lost it.
type PolicyChange struct {
	Tube          string
	Before, After *Policy
}

// ReplacePoliciesSeq makes set (tube name to policy) the queue's policies,
// exactly: a tube in set gets its policy (a zero Policy counts as none),
// every other tube loses any it had. It returns the changes it made, in
// tube name order, and the journal sequence number to wait for
// (Queue.Committed) before reporting them done. The set is checked whole
// first (CheckPolicies: a *PolicyError names the tube and the field); then
// the change is journaled as one RecPolicySet record and applied. An error
// leaves every policy as it was. When nothing changes it writes nothing
// and returns no changes and 0. Schedules keep their progress and counters
// carry over as SetPolicySeq's do. Safe for concurrent use; it must not be
// called from a wake function.
func (q *Queue) ReplacePoliciesSeq(set map[string]Policy) ([]PolicyChange, uint64, error) {
	want := make(map[string]Policy, len(set))
	for name, p := range set {
		if !p.IsZero() {
			want[name] = p
		}
	}
	if err := CheckPolicies(want); err != nil {
		return nil, 0, err
	}
	compiled := make(map[string]*compiled, len(want))
	for name, p := range want {
		c, err := compilePolicy(p)
		if err != nil {
			return nil, 0, err // not reached: CheckPolicies validated it
		}
		compiled[name] = c
	}
	ps := &q.pols
	ps.setMu.Lock()
	changes, entries := q.policyDiff(compiled)
	if len(changes) == 0 {
		ps.setMu.Unlock()
		return nil, 0, nil
	}
	rec := &PolicyRecord{}
	for _, name := range slices.Sorted(maps.Keys(compiled)) {
		e := entries[name]
		if e == nil {
			e = ps.byName[name] // unchanged
		}
		rec.Tubes = append(rec.Tubes, TubePolicyRecord{Tube: name,
			PolicyRecord: PolicyRecord{Policy: e.c.p, Fired: append([]int64(nil), e.fired...)}})
	}
	seq, err := q.append(Record{Kind: RecPolicySet, Policy: rec})
	if err != nil {
		ps.setMu.Unlock()
		return nil, 0, err
	}
	for _, ch := range changes {
		q.installPolicy(ch.Tube, ps.byName[ch.Tube], entries[ch.Tube])
	}
	ps.setMu.Unlock()
	for _, ch := range changes {
		q.servePolicyTube(ch.Tube)
	}
	return changes, seq, nil
}

// policyDiff compares the installed policies with want: the changes, in
// tube name order, and the new entry of each tube whose policy is set or
// replaced (a removal has none). setMu held.
func (q *Queue) policyDiff(want map[string]*compiled) ([]PolicyChange, map[string]*policyEntry) {
	ps := &q.pols
	names := slices.Collect(maps.Keys(want))
	for name := range ps.byName {
		if _, ok := want[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var changes []PolicyChange
	entries := make(map[string]*policyEntry)
	for _, name := range names {
		old, c := ps.byName[name], want[name]
		if old != nil && c != nil && reflect.DeepEqual(old.c.p, c.p) {
			continue
		}
		ch := PolicyChange{Tube: name}
		if old != nil {
			p := old.c.p.Clone()
			ch.Before = &p
		}
		if c != nil {
			p := c.p.Clone()
			ch.After = &p
			entries[name] = q.newEntry(name, c, old)
		}
		changes = append(changes, ch)
	}
	return changes, entries
}
