package raft

import (
	"bufio"
	"errors"
	"strings"
	"testing"
	"time"

	hraft "github.com/hashicorp/raft"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// TestForwardPolicy: a policy change asked of a follower is made by the
// leader (forwarded over its raft port, inside node TLS) and is in force
// on the leader's queue when the call returns - a schedule of large bodies
// included, beyond the membership changes' old 4 KiB line; a policy the
// leader refuses comes back naming the field; the policy outlives the
// leader.
func TestForwardPolicy(t *testing.T) {
	ca := enginetest.NewCA(t, "cluster")
	nodes, _ := openTLSCluster(t, ca, 3)
	leading := func() (int, *jobs.Queue) { return leadingNode(t, nodes) }
	li, _ := leading()
	f := nodes[(li+1)%3]
	enginetest.Eventually(t, "the follower to know the leader", func() bool {
		id, _ := f.Leader()
		return id != ""
	})
	big := strings.Repeat("<&\u2028x", jobs.MaxScheduleBody/6) // HTML and line-separator escapes
	p := jobs.Policy{MaxReserves: 3, DeadLetter: "work-dead", MaxReady: 10,
		Schedule: []jobs.Schedule{{Cron: "@every 1h", Body: big, TTR: 60}, {Cron: "0 * * * *", Body: big + "2", TTR: 5}}}
	// The follower's view of the leader may be a step behind at first.
	require.NoError(t, untilLeaderTakes(t, func() error { return f.ForwardSetPolicy("work", p) }))
	_, q := leading()
	got, ok := q.Policy("work")
	require.True(t, ok, "in force on the leader when the call returns")
	assert.Equal(t, p, got)

	// Only the leader knows the policy is for its own dead-letter tube.
	err := untilLeaderTakes(t, func() error { return f.ForwardSetPolicy("work", jobs.Policy{MaxReserves: 1, DeadLetter: "work"}) })
	var pe *jobs.PolicyError
	require.True(t, errors.As(err, &pe), "a *jobs.PolicyError, got %v", err)
	assert.Equal(t, "dead_letter", pe.Field)
	assert.NotEmpty(t, pe.Reason)
	err = untilLeaderTakes(t, func() error {
		return f.ForwardSetPolicy("work", jobs.Policy{MaxReserves: 1, Schedule: []jobs.Schedule{{Cron: "61 * * * *"}}})
	})
	require.True(t, errors.As(err, &pe), "a *jobs.PolicyError, got %v", err)
	assert.Equal(t, "schedule[0].cron", pe.Field)
	_, q = leading()
	got, _ = q.Policy("work")
	assert.Equal(t, p, got, "a refused policy changes nothing")

	// A patch goes to the leader as a patch and is merged into the
	// leader's policy there: the schedules the follower never read stay.
	var patched jobs.Policy
	require.NoError(t, untilLeaderTakes(t, func() (err error) {
		patched, err = f.ForwardPatchPolicy("work", []byte(`{"max_ready": null, "reserve_rate": 2}`))
		return err
	}))
	want := p.Clone()
	want.MaxReady, want.ReserveRate = 0, 2
	assert.Equal(t, want, patched, "the policy the patch left")
	_, q = leading()
	got, _ = q.Policy("work")
	assert.Equal(t, want, got, "in force on the leader")
	err = untilLeaderTakes(t, func() error {
		_, err := f.ForwardPatchPolicy("work", []byte(`{"max_reserves": null}`))
		return err
	})
	require.True(t, errors.As(err, &pe), "a *jobs.PolicyError, got %v", err)
	assert.Equal(t, "dead_letter", pe.Field, "the merged result is checked on the leader")

	var removed bool
	require.NoError(t, untilLeaderTakes(t, func() (err error) { removed, err = f.ForwardRemovePolicy("work"); return err }))
	assert.True(t, removed)
	_, q = leading()
	_, ok = q.Policy("work")
	assert.False(t, ok, "removed on the leader")
	removed, err = f.ForwardRemovePolicy("work")
	require.NoError(t, err)
	assert.False(t, removed, "there was none left")

	// Set through the follower again; the next leader has it.
	slow := jobs.Policy{ReserveRate: 5}
	require.NoError(t, untilLeaderTakes(t, func() error { return f.ForwardSetPolicy("slow", slow) }))

	// A whole set through the follower: one entry; a cycle is refused
	// naming the tube, and changes nothing.
	capped := jobs.Policy{MaxReady: 1, Overflow: jobs.OverflowBury}
	var changes []jobs.PolicyChange
	require.NoError(t, untilLeaderTakes(t, func() (err error) {
		changes, err = f.ForwardReplacePolicies(map[string]jobs.Policy{"slow": slow, "capped": capped})
		return err
	}))
	require.Len(t, changes, 1)
	assert.Equal(t, "capped", changes[0].Tube)
	assert.Nil(t, changes[0].Before)
	assert.Equal(t, capped, *changes[0].After)
	err = untilLeaderTakes(t, func() error {
		_, err := f.ForwardReplacePolicies(map[string]jobs.Policy{
			"x": {MaxReserves: 1, DeadLetter: "y"}, "y": {MaxReserves: 1, DeadLetter: "x"}})
		return err
	})
	require.True(t, errors.As(err, &pe), "a *jobs.PolicyError, got %v", err)
	assert.Equal(t, "x", pe.Tube)
	assert.Contains(t, pe.Reason, "x → y → x")
	li, _ = leading()
	require.NoError(t, nodes[li].Close())
	var nq *jobs.Queue
	enginetest.Eventually(t, "a new leader serving", func() bool {
		for i, n := range nodes {
			if i != li && n.Raft().State() == hraft.Leader {
				nq = n.Queue()
			}
		}
		return nq != nil
	})
	assert.Equal(t, map[string]jobs.Policy{"slow": slow, "capped": capped}, nq.Policies(),
		"the new leader has the policies set through a follower")
}

// leadingNode returns the node serving a queue, and the queue, waiting
// for one.
func leadingNode(t *testing.T, nodes []*Node) (int, *jobs.Queue) {
	t.Helper()
	var li int
	var q *jobs.Queue
	enginetest.Eventually(t, "a leader serving", func() bool {
		for i, n := range nodes {
			if q = n.Queue(); q != nil {
				li = i
				return true
			}
		}
		return false
	})
	return li, q
}

// untilLeaderTakes calls change again while it finds no leader (an
// election under way, a follower's stale view), for up to 20 s.
func untilLeaderTakes(t *testing.T, change func() error) error {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := change()
		if !errors.Is(err, cluster.ErrNotLeader) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestForwardLineBound: a forwarded line may hold a large policy, but not
// more than forwardMaxLine bytes.
func TestForwardLineBound(t *testing.T) {
	var v map[string]string
	line := `{"a":"` + strings.Repeat("x", 1<<20) + `"}` + "\n"
	require.NoError(t, readJSONLine(bufio.NewReader(strings.NewReader(line)), &v))
	assert.Len(t, v["a"], 1<<20)
	line = `{"a":"` + strings.Repeat("x", forwardMaxLine) + `"}` + "\n"
	assert.ErrorContains(t, readJSONLine(bufio.NewReader(strings.NewReader(line)), &v), "too long")
}
