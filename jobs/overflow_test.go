package jobs

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestOverflowModes: a put over max_ready gets, per overflow mode, nothing
// stored (reject, also the zero mode), the job stored buried in its tube
// (bury) or the job stored in the dead-letter tube (dead_letter); what is
// logged is the job as it is stored.
func TestOverflowModes(t *testing.T) {
	for _, tc := range []struct {
		mode      Overflow
		err       error
		tube      string // where the job is; "" nowhere
		state     State
		refused   uint64
		overflown uint64
	}{
		{"", ErrQueueFull, "", 0, 1, 0},
		{OverflowReject, ErrQueueFull, "", 0, 1, 0},
		{OverflowBury, ErrPutBuried, "full", Buried, 0, 1},
		{OverflowDeadLetter, nil, "spill", Delayed, 0, 1},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			f, jr := newJournalFixture(t)
			s, _ := f.session()
			f.use(s, "full")
			p := Policy{MaxReady: 1, Overflow: tc.mode}
			if tc.mode == OverflowDeadLetter {
				p.DeadLetter = "spill"
			}
			require.NoError(t, f.q.SetPolicy("full", p))
			f.put(s, 1, 0)
			jr.take()
			id := f.q.NextID()
			got, seq, err := s.Put(PutRequest{ID: id, Pri: 7, Delay: time.Minute, TTR: time.Minute, Body: []byte("over")})
			require.Equal(t, id, got)
			if tc.err == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tc.err)
			}
			recs := jr.take()
			ts := f.tubeStats("full")
			require.Equal(t, tc.refused, ts.RefusedFull)
			require.Equal(t, tc.overflown, ts.Overflowed)
			if tc.tube == "" {
				require.Zero(t, seq)
				require.Empty(t, recs)
				_, err := f.q.StatsJob(id)
				require.ErrorIs(t, err, ErrNotFound)
				return
			}
			require.NotZero(t, seq, "the stored job is journaled")
			require.Len(t, recs, 1)
			require.Equal(t, RecPut, recs[0].Kind)
			require.Equal(t, tc.tube, recs[0].Tube)
			require.Equal(t, tc.state, recs[0].State)
			js := f.jobStats(id)
			require.Equal(t, tc.tube, js.Tube)
			require.Equal(t, tc.state, js.State)
			require.Equal(t, uint32(7), js.Pri)
			if tc.state == Buried {
				require.Equal(t, uint32(1), js.Buries)
				require.Equal(t, int64(1), f.tubeStats("full").Buried)
			}
		})
	}
}

// TestOverflowDeadLetterFull: a dead-letter tube at its own max_ready
// refuses the overflowing job; its own overflow mode is not followed (one
// hop), so no chain loops.
func TestOverflowDeadLetterFull(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	require.NoError(t, f.q.SetPolicy("a", Policy{MaxReady: 1, Overflow: OverflowDeadLetter, DeadLetter: "b"}))
	require.NoError(t, f.q.SetPolicy("b", Policy{MaxReady: 1, Overflow: OverflowBury}))
	f.use(s, "a")
	f.put(s, 1, 0)
	f.put(s, 1, 0) // into b
	_, _, err := s.Put(PutRequest{Body: []byte("x")})
	require.ErrorIs(t, err, ErrQueueFull, "b is full: refused, not buried by b's own overflow")
	ts := f.tubeStats("a")
	require.Equal(t, uint64(1), ts.Overflowed)
	require.Equal(t, uint64(1), ts.RefusedFull)
	require.Equal(t, int64(1), f.tubeStats("b").Ready)
	require.Zero(t, f.tubeStats("b").Buried)
}

// TestOverflowDeadLetterWakesWaiter: a worker waiting on the dead-letter
// tube gets the overflowing job at once.
func TestOverflowDeadLetterWakesWaiter(t *testing.T) {
	f := newFixture(t)
	p, _ := f.session()
	w, wakes := f.session()
	f.watch(w, "spill")
	f.ignore(w, "default")
	_, err := w.Reserve(-1)
	require.ErrorIs(t, err, ErrWaiting)
	require.NoError(t, f.q.SetPolicy("a", Policy{MaxReady: 1, Overflow: OverflowDeadLetter, DeadLetter: "spill"}))
	f.use(p, "a")
	f.put(p, 1, 0)
	id := f.put(p, 1, 0)
	require.Equal(t, 1, wakes.n)
	got, err := f.outcome(w)
	require.NoError(t, err)
	require.Equal(t, id, got)
}

// TestScheduleOverflow: scheduled puts follow the overflow mode; one that
// goes to the dead-letter tube records the schedule's progress in a policy
// record, since its put cannot carry the mark.
func TestScheduleOverflow(t *testing.T) {
	f, jr := newJournalFixture(t)
	sched := []Schedule{{Cron: "@every 1s", Body: "tick"}}
	require.NoError(t, f.q.SetPolicy("bur", Policy{MaxReady: 1, Overflow: OverflowBury, Schedule: sched}))
	require.NoError(t, f.q.SetPolicy("dl", Policy{MaxReady: 1, Overflow: OverflowDeadLetter, DeadLetter: "spill", Schedule: sched}))
	jr.take()
	f.advance(time.Second)
	f.advance(time.Second)
	require.Equal(t, int64(1), f.tubeStats("bur").Ready)
	require.Equal(t, int64(1), f.tubeStats("bur").Buried)
	require.Equal(t, uint64(2), f.tubeStats("bur").ScheduledPuts)
	require.Equal(t, int64(1), f.tubeStats("spill").Ready)
	require.Equal(t, uint64(1), f.tubeStats("dl").Overflowed)
	var marked, policyRecs int
	for _, r := range jr.take() {
		switch {
		case r.Kind == RecPut && r.Sched != 0:
			marked++
			require.NotEqual(t, "spill", r.Tube, "a mark never travels to another tube")
		case r.Kind == RecPolicy:
			policyRecs++
			require.Equal(t, "dl", r.Tube)
			require.Equal(t, t0+2*int64(time.Second), r.Policy.Fired[0])
		}
	}
	require.Equal(t, 3, marked, "bur twice, dl once")
	require.Equal(t, 1, policyRecs)
}

// TestPolicyCountersOutliveTube: the counters belong to the policy: they
// stay when the tube empties and vanishes and when the policy is replaced,
// show for a tube that does not exist, and go with the policy.
func TestPolicyCountersOutliveTube(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	require.NoError(t, f.q.SetPolicy("gone", Policy{MaxReady: 1}))
	require.NoError(t, f.q.SetPolicy("never", Policy{MaxReserves: 1}))
	f.use(s, "gone")
	id := f.put(s, 1, 0)
	_, _, err := s.Put(PutRequest{Body: []byte("x")})
	require.ErrorIs(t, err, ErrQueueFull)
	_, err = s.Delete(id)
	require.NoError(t, err)
	f.use(s, "default")
	_, err = f.q.StatsTube([]byte("gone"))
	require.ErrorIs(t, err, ErrNotFound, "the tube vanished")
	require.Equal(t, []PolicyStat{
		{Tube: "gone", Policy: Policy{MaxReady: 1}, PolicyCounts: PolicyCounts{RefusedFull: 1}},
		{Tube: "never", Policy: Policy{MaxReserves: 1}},
	}, f.q.PolicyStats())

	require.NoError(t, f.q.SetPolicy("gone", Policy{MaxReady: 2})) // replaced: kept
	f.use(s, "gone")
	require.Equal(t, uint64(1), f.tubeStats("gone").RefusedFull, "a new tube shows its policy's counters")
	_, err = f.q.RemovePolicy("gone")
	require.NoError(t, err)
	require.Zero(t, f.tubeStats("gone").RefusedFull, "gone with the policy")
	require.NoError(t, f.q.SetPolicy("gone", Policy{MaxReady: 1}))
	require.Zero(t, f.q.PolicyStats()[0].RefusedFull, "a new policy counts from zero")
}

// TestSetPolicyRefusesCycles: a dead-letter cycle of any length is refused
// when the policy closing it is set, naming the cycle; nothing changes.
func TestSetPolicyRefusesCycles(t *testing.T) {
	f, jr := newJournalFixture(t)
	require.NoError(t, f.q.SetPolicy("emails", Policy{MaxReserves: 3, DeadLetter: "emails-dead"}))
	require.NoError(t, f.q.SetPolicy("b", Policy{MaxReserves: 1, DeadLetter: "c"}))
	require.NoError(t, f.q.SetPolicy("c", Policy{MaxReady: 1, Overflow: OverflowDeadLetter, DeadLetter: "d"}))
	jr.take()
	err := f.q.SetPolicy("emails-dead", Policy{MaxReserves: 1, DeadLetter: "emails"})
	var pe *PolicyError
	require.True(t, errors.As(err, &pe), "%v", err)
	require.Equal(t, "dead_letter", pe.Field)
	require.Contains(t, err.Error(), "emails → emails-dead → emails")
	err = f.q.SetPolicy("d", Policy{MaxReserves: 1, DeadLetter: "b"})
	require.ErrorContains(t, err, "b → c → d → b")
	require.Empty(t, jr.take(), "nothing journaled")
	_, ok := f.q.Policy("emails-dead")
	require.False(t, ok)
	// Breaking the chain first makes the same policy acceptable.
	_, err = f.q.RemovePolicy("emails")
	require.NoError(t, err)
	require.NoError(t, f.q.SetPolicy("emails-dead", Policy{MaxReserves: 1, DeadLetter: "emails"}))
}
