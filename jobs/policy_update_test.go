package jobs

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPolicyRunsLastAndNext: a schedule shows no last run until it fires,
// then the time it fired at; next is its next time, in its zone. Read back
// from a journal, a cron schedule's last run is recovered; an @every one's
// cannot be told from the time it was set.
func TestPolicyRunsLastAndNext(t *testing.T) {
	f := fixtureAt(t, "2026-06-01 06:58")
	p := Policy{Schedule: []Schedule{
		{Cron: "0 9 * * *", TZ: "Europe/Berlin", Body: "daily"}, // 07:00 UTC in summer
		{Cron: "@every 90s", Body: "often"},
	}}
	require.NoError(t, f.q.SetPolicy("r", p))
	_, runs, ok := f.q.PolicyRuns("r")
	require.True(t, ok)
	require.True(t, runs[0].Last.IsZero() && runs[1].Last.IsZero(), "nothing ran yet: %+v", runs)
	require.Equal(t, "2026-06-01T09:00:00+02:00", runs[0].Next.Format(time.RFC3339))
	require.Equal(t, "2026-06-01T06:59:30Z", runs[1].Next.Format(time.RFC3339))

	f.advance(2 * time.Minute) // 07:00 UTC: both fire
	got, runs, ok := f.q.PolicyRuns("r")
	require.True(t, ok)
	require.Equal(t, p, got)
	require.Equal(t, "2026-06-01T09:00:00+02:00", runs[0].Last.Format(time.RFC3339))
	require.Equal(t, "2026-06-02T09:00:00+02:00", runs[0].Next.Format(time.RFC3339))
	require.Equal(t, "2026-06-01T06:59:30Z", runs[1].Last.Format(time.RFC3339), "the latest time due")
	require.Equal(t, "2026-06-01T07:01:00Z", runs[1].Next.Format(time.RFC3339))

	// Replacing the policy keeps an unchanged schedule's last run.
	p2 := Policy{MaxReady: 9, Schedule: p.Schedule}
	require.NoError(t, f.q.SetPolicy("r", p2))
	_, runs, _ = f.q.PolicyRuns("r")
	require.False(t, runs[0].Last.IsZero(), "kept")

	// A journal's progress, read back into another queue.
	g := fixtureAt(t, "2026-06-01 07:00")
	require.NoError(t, g.q.RestorePolicy("r", p, []int64{runs[0].Last.UnixNano(), runs[1].Last.UnixNano()}))
	_, runs, _ = g.q.PolicyRuns("r")
	require.Equal(t, "2026-06-01T09:00:00+02:00", runs[0].Last.Format(time.RFC3339), "a cron time: recovered")
	require.True(t, runs[1].Last.IsZero(), "@every: not known")
	require.Equal(t, "2026-06-01T07:01:00Z", runs[1].Next.Format(time.RFC3339))

	_, _, ok = f.q.PolicyRuns("none")
	require.False(t, ok)
}

// TestUpdatePolicySeqAtomic: a merge patch applied under the policy lock
// keeps the fields it does not name, also when other patches race it; an
// error changes nothing; a result with no fields removes the policy.
func TestUpdatePolicySeqAtomic(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.q.SetPolicy("p", Policy{MaxReserves: 3, DeadLetter: "dead"}))
	patch := func(b string) func(Policy, bool) (Policy, error) {
		return func(cur Policy, _ bool) (Policy, error) { return MergePolicyPatch(cur, []byte(b)) }
	}
	var wg sync.WaitGroup
	for _, b := range []string{`{"max_ready": 10}`, `{"reserve_rate": 2}`, `{"schedule": [{"cron": "@hourly", "body": "h"}]}`} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := f.q.UpdatePolicySeq("p", patch(b))
			require.NoError(t, err)
		}()
	}
	wg.Wait()
	got, _ := f.q.Policy("p")
	require.Equal(t, Policy{MaxReserves: 3, DeadLetter: "dead", MaxReady: 10, ReserveRate: 2,
		Schedule: []Schedule{{Cron: "@hourly", Body: "h", Priority: 1024, TTR: 60}}}, got, "no patch lost another's field")

	_, _, err := f.q.UpdatePolicySeq("p", patch(`{"max_reserves": null}`))
	var pe *PolicyError
	require.True(t, errors.As(err, &pe) && pe.Field == "dead_letter", "%v", err)
	_, _, err = f.q.UpdatePolicySeq("p", patch(`{"dead_letter": "p"}`))
	require.True(t, errors.As(err, &pe) && pe.Field == "dead_letter", "its own dead letter: %v", err)
	after, _ := f.q.Policy("p")
	require.Equal(t, got, after, "a refused patch changes nothing")

	res, _, err := f.q.UpdatePolicySeq("p", patch(`{"max_reserves": null, "dead_letter": null, "max_ready": null, "reserve_rate": null, "schedule": null}`))
	require.NoError(t, err)
	require.True(t, res.IsZero())
	_, ok := f.q.Policy("p")
	require.False(t, ok, "a patch that removes every field removes the policy")

	res, _, err = f.q.UpdatePolicySeq("new", patch(`{"max_ready": 1}`))
	require.NoError(t, err)
	require.Equal(t, Policy{MaxReady: 1}, res, "a patch of a tube without a policy starts from none")
}

// TestCheckPolicy: the queue's refusals, without applying anything.
func TestCheckPolicy(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.q.SetPolicy("other", Policy{MaxReady: 1}))
	var pe *PolicyError
	require.NoError(t, CheckPolicy("t", Policy{MaxReady: 1}))
	require.NoError(t, CheckPolicy("t", Policy{}))
	require.True(t, errors.As(CheckPolicy("t", Policy{MaxReserves: 1, DeadLetter: "t"}), &pe) && pe.Field == "dead_letter")
	require.True(t, errors.As(CheckPolicy("t", Policy{Schedule: []Schedule{{Cron: "0 0 31 2 *"}}}), &pe) && pe.Field == "schedule[0].cron")
	require.True(t, errors.As(CheckPolicy("-bad", Policy{MaxReady: 1}), &pe) && pe.Field == "tube")
	_, ok := f.q.Policy("t")
	require.False(t, ok)
}
