package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kickFixture makes, in the used tube "k", two delayed jobs (the second one
// due first) and, if buried > 0, that many buried ones. A job in "default"
// of each kind checks that kick stays in the used tube.
func kickFixture(t *testing.T, buried int) (f *fixture, s *Session, late, soon uint64, bur []uint64) {
	f = newFixture(t)
	s, _ = f.session()
	f.put(s, 0, time.Second) // default, delayed
	b := f.put(s, 0, 0)
	require.Equal(t, b, f.reserve(s))
	_, err := s.Bury(b, 0) // default, buried
	require.NoError(t, err)

	f.use(s, "k")
	f.watch(s, "k")
	f.ignore(s, "default")
	late = f.put(s, 0, 3*time.Second)
	soon = f.put(s, 0, 2*time.Second)
	for range buried {
		id := f.put(s, 0, 0)
		require.Equal(t, id, f.reserve(s))
		_, err = s.Bury(id, 0)
		require.NoError(t, err)
		bur = append(bur, id)
	}
	return f, s, late, soon, bur
}

func TestKick(t *testing.T) {
	tests := []struct {
		name   string
		buried int
		n      uint32
		want   int
	}{
		{"zero", 2, 0, 0},
		{"some buried", 3, 2, 2},
		{"buried only, even fewer than n", 2, 5, 2},
		{"delayed when none buried", 0, 1, 1},
		{"all delayed", 0, 9, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, s, late, soon, bur := kickFixture(t, tc.buried)
			kicks := f.q.Stats()
			n, _, err := s.Kick(tc.n)
			require.NoError(t, err)
			assert.Equal(t, tc.want, n)
			var kicked []uint64
			if tc.buried > 0 {
				kicked = bur[:n]
				assert.Equal(t, Delayed, f.state(late))
				assert.Equal(t, Delayed, f.state(soon))
			} else {
				kicked = []uint64{soon, late}[:n]
			}
			for _, id := range kicked {
				js := f.jobStats(id)
				assert.Equal(t, Ready, js.State, "job %d", id)
				assert.Equal(t, uint32(1), js.Kicks)
			}
			st := f.q.Stats()
			assert.Equal(t, kicks.Ready+int64(n), st.Ready)
			assert.Equal(t, int64(1), f.tubeStats("default").Buried, "kick acts on the used tube only")
			assert.Equal(t, int64(1), f.tubeStats("default").Delayed)
		})
	}
}

func TestKickJob(t *testing.T) {
	f, s, late, _, bur := kickFixture(t, 1)
	ready := f.put(s, 0, 0)
	reserved := f.put(s, 0, 0)
	require.Equal(t, ready, f.reserve(s))
	_, err := s.Release(ready, 0, 0)
	require.NoError(t, err)
	require.Equal(t, ready, f.reserve(s))
	require.Equal(t, reserved, f.reserve(s))
	_, err = s.Release(ready, 0, 0)
	require.NoError(t, err)

	other, _ := f.session() // uses default: kick-job is not tied to the used tube
	for _, id := range []uint64{late, bur[0]} {
		_, err = other.KickJob(id)
		require.NoError(t, err)
		js := f.jobStats(id)
		assert.Equal(t, Ready, js.State)
		assert.Equal(t, uint32(1), js.Kicks)
	}
	for _, id := range []uint64{ready, reserved, late, 12345} {
		_, err = other.KickJob(id)
		assert.ErrorIs(t, err, ErrNotFound, "job %d", id)
	}
}

func TestDelete(t *testing.T) {
	f := newFixture(t)
	owner, _ := f.session()
	f.use(owner, "x")
	f.watch(owner, "x")
	ready := f.put(owner, 5, 0)
	delayed := f.put(owner, 5, time.Minute)
	buried := f.put(owner, 1, 0)
	mine := f.put(owner, 2, 0)
	require.Equal(t, buried, f.reserve(owner))
	_, err := owner.Bury(buried, 0)
	require.NoError(t, err)
	require.Equal(t, mine, f.reserve(owner))

	other, _ := f.session() // uses and watches default only
	_, err = other.Delete(mine)
	assert.ErrorIs(t, err, ErrNotFound, "reserved by another session")
	for _, id := range []uint64{ready, delayed, buried} {
		_, err = other.Delete(id)
		require.NoError(t, err, "job %d", id)
		assert.Equal(t, State(0), f.state(id))
		_, err = f.q.Peek(id)
		assert.ErrorIs(t, err, ErrNotFound)
	}
	_, err = owner.Delete(mine)
	require.NoError(t, err)
	_, err = owner.Delete(mine)
	assert.ErrorIs(t, err, ErrNotFound, "deleted twice")
	assert.Equal(t, uint64(4), f.tubeStats("x").Deletes)
	st := f.q.Stats()
	assert.Zero(t, st.Ready+st.Reserved+st.Delayed+st.Buried)
}

func TestReserveJob(t *testing.T) {
	f := newFixture(t)
	p, _ := f.session()
	f.use(p, "elsewhere")
	ready := f.put(p, 0, 0)
	delayed := f.put(p, 0, time.Minute)
	buried := f.put(p, 0, 0)
	f.watch(p, "elsewhere")
	require.Equal(t, ready, f.reserve(p))
	require.Equal(t, buried, f.reserve(p))
	_, err := p.Bury(buried, 0)
	require.NoError(t, err)
	_, err = p.Release(ready, 0, 0)
	require.NoError(t, err)
	require.NoError(t, f.q.PauseTube([]byte("elsewhere"), time.Hour))

	w, _ := f.session() // watches default only
	held := f.putTTR(w, 0, 0, time.Second)
	require.Equal(t, held, f.reserve(w)) // in its last second: DEADLINE_SOON territory
	for _, id := range []uint64{ready, delayed, buried} {
		d, seq, err := w.ReserveJob(id)
		require.NoError(t, err, "job %d", id)
		assert.Equal(t, id, d.ID)
		assert.Zero(t, seq)
		js := f.jobStats(id)
		assert.Equal(t, Reserved, js.State)
		assert.Equal(t, 10*time.Second, js.TimeLeft)
	}
	for _, id := range []uint64{ready, held, 777} {
		_, _, err = p.ReserveJob(id)
		assert.ErrorIs(t, err, ErrNotFound, "job %d", id)
	}
	assert.Equal(t, int64(2), f.q.Stats().Workers)
	// A reserve-job'd job that times out goes back to ready, not to delayed.
	f.advance(10*time.Second + 1)
	assert.Equal(t, Ready, f.state(delayed))
}

func TestPeeks(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	f.use(s, "p")
	for _, peek := range []func() (JobData, error){s.PeekReady, s.PeekDelayed, s.PeekBuried} {
		assert.Zero(t, f.found(peek()))
	}
	r2 := f.put(s, 2, 0)
	r1 := f.put(s, 1, 0)
	dLate := f.put(s, 0, 3*time.Second)
	dTie1 := f.put(s, 0, 2*time.Second)
	dTie2 := f.put(s, 0, 2*time.Second)
	f.watch(s, "p")
	f.ignore(s, "default")
	b1, b2 := f.put(s, 0, 0), f.put(s, 0, 0)
	require.Equal(t, []uint64{b1, b2}, f.reserveIDs(s, 2))
	for _, id := range []uint64{b2, b1} {
		_, err := s.Bury(id, 0)
		require.NoError(t, err)
	}
	require.NoError(t, f.q.PauseTube([]byte("p"), time.Hour))

	assert.Equal(t, r1, f.found(s.PeekReady()), "peek-ready ignores the pause")
	assert.Equal(t, dTie1, f.found(s.PeekDelayed()), "soonest, ties by id")
	assert.Equal(t, b2, f.found(s.PeekBuried()), "oldest buried")
	for _, id := range []uint64{r2, dLate, dTie2, b1} {
		assert.Equal(t, id, f.found(f.q.Peek(id)))
	}
	_, err := f.q.Peek(424242)
	assert.ErrorIs(t, err, ErrNotFound)

	// The peek-* commands look at the used tube, not the watched ones.
	other, _ := f.session()
	f.watch(other, "p")
	for _, peek := range []func() (JobData, error){other.PeekReady, other.PeekDelayed, other.PeekBuried} {
		assert.Zero(t, f.found(peek()))
	}
	// peek finds reserved jobs too.
	f.use(other, "q")
	f.watch(other, "q")
	id := f.put(other, 0, 0)
	require.Equal(t, id, f.reserve(other))
	assert.Equal(t, id, f.found(f.q.Peek(id)))
}
