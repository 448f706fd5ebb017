package jobs

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReplacePolicies: the set becomes exactly the queue's policies, in one
// record, with the changes reported in name order; a second call with the
// same set writes nothing.
func TestReplacePolicies(t *testing.T) {
	f, jr := newJournalFixture(t)
	require.NoError(t, f.q.SetPolicy("keep", Policy{MaxReady: 5}))
	require.NoError(t, f.q.SetPolicy("drop", Policy{MaxReserves: 2}))
	require.NoError(t, f.q.SetPolicy("change", Policy{MaxReady: 1}))
	jr.take()
	set := map[string]Policy{
		"keep":   {MaxReady: 5},
		"change": {MaxReady: 9},
		"new":    {ReserveRate: 2},
		"zero":   {}, // the same as none
	}
	changes, seq, err := f.q.ReplacePoliciesSeq(set)
	require.NoError(t, err)
	require.NotZero(t, seq)
	p := func(p Policy) *Policy { return &p }
	require.Equal(t, []PolicyChange{
		{Tube: "change", Before: p(Policy{MaxReady: 1}), After: p(Policy{MaxReady: 9})},
		{Tube: "drop", Before: p(Policy{MaxReserves: 2})},
		{Tube: "new", After: p(Policy{ReserveRate: 2})},
	}, changes)
	require.Equal(t, map[string]Policy{"keep": {MaxReady: 5}, "change": {MaxReady: 9}, "new": {ReserveRate: 2}}, f.q.Policies())
	recs := jr.take()
	require.Len(t, recs, 1, "one record for the whole change")
	require.Equal(t, RecPolicySet, recs[0].Kind)
	var tubes []string
	for _, tp := range recs[0].Policy.Tubes {
		tubes = append(tubes, tp.Tube)
	}
	require.Equal(t, []string{"change", "keep", "new"}, tubes, "the whole set, in name order")

	changes, seq, err = f.q.ReplacePoliciesSeq(set)
	require.NoError(t, err)
	require.Empty(t, changes)
	require.Zero(t, seq)
	require.Empty(t, jr.take())

	changes, _, err = f.q.ReplacePoliciesSeq(nil)
	require.NoError(t, err)
	require.Len(t, changes, 3)
	require.Empty(t, f.q.Policies(), "an empty set removes every policy")
	recs = jr.take()
	require.Len(t, recs, 1)
	require.Empty(t, recs[0].Policy.Tubes)
}

// TestReplacePoliciesAllOrNothing: a bad entry anywhere in the set (after
// good ones, across tubes, or a journal refusal) leaves every policy as it
// was and writes nothing.
func TestReplacePoliciesAllOrNothing(t *testing.T) {
	f, jr := newJournalFixture(t)
	require.NoError(t, f.q.SetPolicy("a", Policy{MaxReady: 1}))
	jr.take()
	before := f.q.Policies()
	for name, set := range map[string]map[string]Policy{
		"invalid after good": {"a": {MaxReady: 2}, "b": {MaxReady: 3}, "z": {ReserveRate: -1}},
		"self":               {"a": {MaxReady: 2}, "x": {MaxReserves: 1, DeadLetter: "x"}},
		"cycle":              {"a": {MaxReserves: 1, DeadLetter: "b"}, "b": {MaxReserves: 1, DeadLetter: "a"}},
		"bad name":           {"a": {MaxReady: 2}, "-x": {MaxReady: 1}},
	} {
		_, _, err := f.q.ReplacePoliciesSeq(set)
		var pe *PolicyError
		require.True(t, errors.As(err, &pe), "%s: %v", name, err)
		require.NotEmpty(t, pe.Tube, name)
		require.Equal(t, before, f.q.Policies(), name)
		require.Empty(t, jr.take(), name)
	}
	jr.fail = ErrNoSpace
	_, _, err := f.q.ReplacePoliciesSeq(map[string]Policy{"a": {MaxReady: 7}, "b": {MaxReady: 1}})
	require.ErrorIs(t, err, ErrNoSpace)
	require.Equal(t, before, f.q.Policies(), "a journal refusal changes nothing")
}

// TestReplacePoliciesKeepsProgressAndCounters: an unchanged schedule keeps
// its progress and a replaced policy its counters, as with SetPolicy.
func TestReplacePoliciesKeepsProgressAndCounters(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	sched := []Schedule{{Cron: "@every 1m", Body: "x"}}
	require.NoError(t, f.q.SetPolicy("a", Policy{MaxReady: 1, Schedule: sched}))
	f.use(s, "a")
	f.put(s, 1, 0)
	_, _, err := s.Put(PutRequest{Body: []byte("y")})
	require.ErrorIs(t, err, ErrQueueFull)
	_, _, err = f.q.ReplacePoliciesSeq(map[string]Policy{"a": {MaxReady: 3, Schedule: sched}})
	require.NoError(t, err)
	require.Equal(t, uint64(1), f.tubeStats("a").RefusedFull)
}
