package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMaxReserves: after N reserves a job that is released or times out is
// buried, or moved to the dead-letter tube keeping its id, body and
// priority with a fresh reserve count.
func TestMaxReserves(t *testing.T) {
	for _, tc := range []struct {
		name    string
		dead    string
		timeout bool
	}{
		{"release to dead letter", "dead", false},
		{"timeout to dead letter", "dead", true},
		{"release buries", "", false},
		{"timeout buries", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			require.NoError(t, f.q.SetPolicy("work", Policy{MaxReserves: 3, DeadLetter: tc.dead}))
			s, _ := f.session()
			require.NoError(t, s.Use([]byte("work")))
			_, err := s.Watch([]byte("work"))
			require.NoError(t, err)
			id := f.putTTR(s, 7, 0, time.Second)
			giveBack := func() {
				if tc.timeout {
					f.advance(1100 * time.Millisecond)
					return
				}
				_, err := s.Release(id, 7, 0)
				require.NoError(t, err)
			}
			for i := 0; i < 3; i++ {
				require.Equal(t, id, f.reserve(s))
				js, err := f.q.StatsJob(id)
				require.NoError(t, err)
				require.Equal(t, "work", js.Tube)
				require.Equal(t, uint32(i+1), js.Reserves)
				giveBack()
			}
			js, err := f.q.StatsJob(id)
			require.NoError(t, err)
			st, err := f.q.StatsTube([]byte("work"))
			require.NoError(t, err)
			require.Equal(t, uint64(1), st.DeadLettered)
			if tc.dead == "" {
				require.Equal(t, Buried, js.State)
				require.Equal(t, "work", js.Tube)
				require.Equal(t, int64(1), st.Buried)
				require.Equal(t, uint32(1), js.Buries)
				return
			}
			require.Equal(t, Ready, js.State)
			require.Equal(t, "dead", js.Tube)
			require.Equal(t, uint32(0), js.Reserves, "fresh reserve count")
			require.Equal(t, uint32(7), js.Pri)
			require.Equal(t, time.Second, js.TTR)
			require.Equal(t, int64(0), st.Ready+st.Reserved+st.Buried)
			// the job is now a job of the dead-letter tube like any other
			_, err = s.Watch([]byte("dead"))
			require.NoError(t, err)
			require.Equal(t, id, f.reserve(s))
			_, err = s.Delete(id)
			require.NoError(t, err)
			_, err = f.q.StatsTube([]byte("work"))
			require.NoError(t, err, "work still used")
		})
	}
}

// TestDeadLetterHandsToWaiter: a worker waiting on the dead-letter tube
// gets the job the moment it moves.
func TestDeadLetterHandsToWaiter(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.q.SetPolicy("work", Policy{MaxReserves: 1, DeadLetter: "dead"}))
	p, _ := f.session()
	require.NoError(t, p.Use([]byte("work")))
	_, err := p.Watch([]byte("work"))
	require.NoError(t, err)
	id := f.put(p, 1, 0)
	require.Equal(t, id, f.reserve(p))

	w, wakes := f.session()
	_, err = w.Watch([]byte("dead"))
	require.NoError(t, err)
	_, err = w.Ignore([]byte("default"))
	require.NoError(t, err)
	_, err = w.Reserve(-1)
	require.ErrorIs(t, err, ErrWaiting)

	_, err = p.Release(id, 1, time.Minute) // the delay is moot: it is dead-lettered
	require.NoError(t, err)
	require.Equal(t, 1, wakes.n)
	d, err := w.TakeOutcome()
	require.NoError(t, err)
	require.Equal(t, id, d.ID)
	require.Equal(t, string(bodyOf(id)), string(d.Body()))
	_, err = w.Delete(id)
	require.NoError(t, err)
	p.Close()
	w.Close()
	require.Equal(t, []string{"default"}, f.q.ListTubes(nil))
}

// TestMaxReservesAppliesToNewTube: a policy set before its tube exists
// applies once it is created, and again after it is dropped and recreated.
func TestMaxReservesAppliesToNewTube(t *testing.T) {
	f := newFixture(t)
	require.NoError(t, f.q.SetPolicy("later", Policy{MaxReserves: 1}))
	for round := 0; round < 2; round++ {
		s, _ := f.session()
		require.NoError(t, s.Use([]byte("later")))
		_, err := s.Watch([]byte("later"))
		require.NoError(t, err)
		id := f.put(s, 1, 0)
		require.Equal(t, id, f.reserve(s))
		_, err = s.Release(id, 1, 0)
		require.NoError(t, err)
		js, err := f.q.StatsJob(id)
		require.NoError(t, err)
		require.Equal(t, Buried, js.State)
		_, err = s.Delete(id)
		require.NoError(t, err)
		s.Close()
		_, err = f.q.StatsTube([]byte("later"))
		require.ErrorIs(t, err, ErrNotFound)
	}
}
