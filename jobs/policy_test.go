package jobs

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestPolicyValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     Policy
		field string // "" when valid
	}{
		{"zero", Policy{}, ""},
		{"all", Policy{MaxReserves: 3, DeadLetter: "dead", MaxReady: 10, ReserveRate: 2.5,
			Schedule: []Schedule{{Cron: "*/5 * * * *", Body: "x"}, {Cron: "@every 30s"}}}, ""},
		{"bury without dead letter", Policy{MaxReserves: 1}, ""},
		{"dead letter alone", Policy{DeadLetter: "dead"}, "dead_letter"},
		{"bad dead letter", Policy{MaxReserves: 1, DeadLetter: "-x"}, "dead_letter"},
		{"negative rate", Policy{ReserveRate: -1}, "reserve_rate"},
		{"huge rate", Policy{ReserveRate: 2e6}, "reserve_rate"},
		{"bad cron", Policy{Schedule: []Schedule{{Cron: "@every 30s"}, {Cron: "* * *"}}}, "schedule[1].cron"},
		{"short every", Policy{Schedule: []Schedule{{Cron: "@every 10ms"}}}, "schedule[0].cron"},
		{"minute out of range", Policy{Schedule: []Schedule{{Cron: "60 * * * *"}}}, "schedule[0].cron"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			if tc.field == "" {
				require.NoError(t, err)
				return
			}
			var pe *PolicyError
			require.True(t, errors.As(err, &pe), "%v", err)
			require.Equal(t, tc.field, pe.Field)
			require.Contains(t, err.Error(), "policy: "+tc.field+": ")
		})
	}
}

func TestSetPolicyReadRemove(t *testing.T) {
	f := newFixture(t)
	q := f.q
	p := Policy{MaxReady: 2, Schedule: []Schedule{{Cron: "@every 1m", Body: "b"}}}
	require.NoError(t, q.SetPolicy("later", p)) // a tube that does not exist yet
	got, ok := q.Policy("later")
	require.True(t, ok)
	require.Equal(t, p, got)
	got.Schedule[0].Body = "changed" // a copy
	again, _ := q.Policy("later")
	require.Equal(t, "b", again.Schedule[0].Body)
	require.Equal(t, map[string]Policy{"later": p}, q.Policies())

	var pe *PolicyError
	require.ErrorAs(t, q.SetPolicy("bad name!", p), &pe)
	require.Equal(t, "tube", pe.Field)
	require.ErrorAs(t, q.SetPolicy("later", Policy{MaxReserves: 1, DeadLetter: "later"}), &pe)
	require.Equal(t, "dead_letter", pe.Field)
	still, _ := q.Policy("later")
	require.Equal(t, p, still, "a refused policy changes nothing")

	removed, err := q.RemovePolicy("later")
	require.NoError(t, err)
	require.True(t, removed)
	removed, err = q.RemovePolicy("later")
	require.NoError(t, err)
	require.False(t, removed)
	_, ok = q.Policy("later")
	require.False(t, ok)
	require.NoError(t, q.SetPolicy("x", Policy{MaxReady: 1}))
	require.NoError(t, q.SetPolicy("x", Policy{}), "a zero policy removes")
	require.Empty(t, q.Policies())
}

func TestMaxReady(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	require.NoError(t, s.Use([]byte("full")))
	_, err := s.Watch([]byte("full"))
	require.NoError(t, err)
	require.NoError(t, f.q.SetPolicy("full", Policy{MaxReady: 2}))
	f.put(s, 1, 0)
	f.put(s, 1, time.Minute) // delayed counts too
	id := f.q.NextID()
	_, _, err = s.Put(PutRequest{ID: id, Body: []byte("x")})
	require.ErrorIs(t, err, ErrQueueFull)
	_, err = f.q.StatsJob(id)
	require.ErrorIs(t, err, ErrNotFound, "nothing stored")
	st, err := f.q.StatsTube([]byte("full"))
	require.NoError(t, err)
	require.Equal(t, uint64(1), st.RefusedFull)
	require.Equal(t, uint64(2), st.TotalJobs)
	// a reserved job no longer counts
	f.reserve(s)
	f.put(s, 1, 0)
	// removing the policy lifts the limit
	_, err = f.q.RemovePolicy("full")
	require.NoError(t, err)
	f.put(s, 1, 0)
}
