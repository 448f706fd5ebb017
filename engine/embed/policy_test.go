package embed_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/embed"
)

// TestOpenPolicies: Options.Policies are checked whole (one bad policy
// fails Open naming the tube and the field, and none is applied), then in
// force; SetPolicy, Policy, Policies and RemovePolicy on the open queue.
func TestOpenPolicies(t *testing.T) {
	ctx := context.Background()
	_, err := embed.Open(embed.Options{Policies: map[string]embed.Policy{
		"good": {MaxReady: 1},
		"bad":  {ReserveRate: -1},
	}})
	var pe *embed.PolicyError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "reserve_rate", pe.Field)
	assert.Contains(t, err.Error(), `"bad"`)
	_, err = embed.Open(embed.Options{Policies: map[string]embed.Policy{"-x": {MaxReady: 1}}})
	assert.ErrorIs(t, err, embed.ErrBadTubeName)

	q, err := embed.Open(embed.Options{Policies: map[string]embed.Policy{"a": {MaxReady: 1}}})
	require.NoError(t, err)
	defer q.Close()
	_, ok := q.Policy("good")
	assert.False(t, ok, "the refused Open applied nothing")
	require.NoError(t, q.SetPolicy(ctx, "b", embed.Policy{MaxReserves: 3}))
	_, err = q.Put(ctx, "a", []byte("1"), embed.PutOptions{})
	require.NoError(t, err)
	_, err = q.Put(ctx, "a", []byte("2"), embed.PutOptions{})
	assert.ErrorIs(t, err, embed.ErrQueueFull)
	assert.Equal(t, map[string]embed.Policy{"a": {MaxReady: 1}, "b": {MaxReserves: 3}}, q.Policies())
	removed, err := q.RemovePolicy(ctx, "b")
	require.NoError(t, err)
	assert.True(t, removed)
	removed, err = q.RemovePolicy(ctx, "b")
	require.NoError(t, err)
	assert.False(t, removed)
	err = q.SetPolicy(ctx, "a", embed.Policy{DeadLetter: "a-dead"})
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.Equal(t, "dead_letter", pe.Field)
	p, _ := q.Policy("a")
	assert.Equal(t, embed.Policy{MaxReady: 1}, p, "a refused policy leaves the old one")
	require.NoError(t, q.Close())
	assert.ErrorIs(t, q.SetPolicy(ctx, "a", embed.Policy{}), embed.ErrClosed)
}

// TestPutOverflow: a put into a tube at max_ready gets what the policy's
// overflow says: ErrQueueFull, or the id with ErrBuried (the job stored,
// buried), or the id with no error (the job in the dead-letter tube); a
// dead-letter cycle in Options.Policies is refused before Open changes
// anything.
func TestPutOverflow(t *testing.T) {
	ctx := context.Background()
	_, err := embed.Open(embed.Options{Policies: map[string]embed.Policy{
		"a": {MaxReserves: 1, DeadLetter: "b"}, "b": {MaxReserves: 1, DeadLetter: "a"}}})
	var pe *embed.PolicyError
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.Contains(t, err.Error(), "a → b → a")

	q, err := embed.Open(embed.Options{Policies: map[string]embed.Policy{
		"bury":  {MaxReady: 1, Overflow: embed.OverflowBury},
		"spill": {MaxReady: 1, Overflow: embed.OverflowDeadLetter, DeadLetter: "spilled"},
	}})
	require.NoError(t, err)
	defer q.Close()
	for _, tube := range []string{"bury", "spill"} {
		_, err = q.Put(ctx, tube, []byte("1"), embed.PutOptions{})
		require.NoError(t, err)
	}
	id, err := q.Put(ctx, "bury", []byte("2"), embed.PutOptions{})
	require.ErrorIs(t, err, embed.ErrBuried)
	require.NotZero(t, id)
	j, err := q.StatsJob(id)
	require.NoError(t, err)
	assert.Equal(t, "buried", j.State.String())
	id, err = q.PutNoWait("spill", []byte("3"), embed.PutOptions{})
	require.NoError(t, err)
	j, err = q.StatsJob(id)
	require.NoError(t, err)
	assert.Equal(t, "spilled", j.Tube)
}

// TestOpenPoliciesPersistent: with a Dir, policies are in the journal:
// Options.Policies replace what it held for their tubes after a restart,
// and a policy set by a call survives it.
func TestOpenPoliciesPersistent(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	q, err := embed.Open(embed.Options{Dir: dir, Policies: map[string]embed.Policy{"a": {MaxReady: 1}}})
	require.NoError(t, err)
	require.NoError(t, q.SetPolicy(ctx, "b", embed.Policy{MaxReserves: 3}))
	require.NoError(t, q.Close())

	q, err = embed.Open(embed.Options{Dir: dir, Policies: map[string]embed.Policy{"a": {MaxReady: 5}}})
	require.NoError(t, err)
	assert.Equal(t, map[string]embed.Policy{"a": {MaxReady: 5}, "b": {MaxReserves: 3}}, q.Policies(),
		"the option replaced a's policy; b's, set by a call, survived the restart")
	removed, err := q.RemovePolicy(ctx, "b")
	require.NoError(t, err)
	assert.True(t, removed)
	require.NoError(t, q.Close())

	q, err = embed.Open(embed.Options{Dir: dir})
	require.NoError(t, err)
	defer q.Close()
	assert.Equal(t, map[string]embed.Policy{"a": {MaxReady: 5}}, q.Policies(), "the removal is in the journal too")
}
