package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPutReadyOrDelayed(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	ready := f.put(s, 5, 0)
	delayed := f.put(s, 5, time.Second)
	assert.Equal(t, Ready, f.state(ready))
	assert.Equal(t, Delayed, f.state(delayed))
	assert.Equal(t, time.Second, f.jobStats(delayed).TimeLeft)
	assert.Equal(t, time.Duration(0), f.jobStats(ready).TimeLeft)
}

func TestPutRejects(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	f.q.SetDraining(true)
	require.True(t, f.q.Draining())
	id, _, err := s.Put(PutRequest{Owned: body("x")})
	assert.ErrorIs(t, err, ErrDraining)
	f.q.SetDraining(false)
	next, _, err := s.Put(PutRequest{Owned: body("y")})
	require.NoError(t, err)
	assert.Equal(t, id+1, next, "a refused put spends its id")
	assert.Equal(t, uint64(1), f.q.Stats().TotalJobs)
}

// A Body is copied once; the caller keeps its slice. An Owned body is kept
// as it is, whatever bytes it holds.
func TestPutBody(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	data := []byte("hello\r\nworld")
	id, _, err := s.Put(PutRequest{Body: data})
	require.NoError(t, err)
	copy(data, "HELLO")
	d, err := f.q.Peek(id)
	require.NoError(t, err)
	assert.Equal(t, "hello\r\nworld", string(d.Body()), "copied: later changes to the caller's slice do not show")
	assert.Equal(t, len(d.Body()), cap(d.Body()), "the body is its own allocation, capped")

	empty, _, err := s.Put(PutRequest{})
	require.NoError(t, err)
	d, err = f.q.Peek(empty)
	require.NoError(t, err)
	assert.NotNil(t, d.Body())
	assert.Empty(t, d.Body())

	for _, b := range [][]byte{{}, []byte("x"), []byte("ab\n"), []byte("ab\r\n")} {
		id, _, err := s.Put(PutRequest{Owned: b})
		require.NoError(t, err)
		d, err := f.q.Peek(id)
		require.NoError(t, err)
		assert.Equal(t, string(b), string(d.Body()), "kept verbatim")
	}
	own := []byte("mine")
	id, _, err = s.Put(PutRequest{Owned: own})
	require.NoError(t, err)
	d, err = f.q.Peek(id)
	require.NoError(t, err)
	assert.Same(t, &own[0], &d.Body()[0], "kept without a copy")
}

// Reserve takes the global minimum of (pri, id) over every watched tube,
// whatever the tube it sits in.
func TestReserveOrderAcrossTubes(t *testing.T) {
	f := newFixture(t)
	p, _ := f.session()
	type put struct {
		tube string
		pri  uint32
	}
	puts := []put{{"a", 5}, {"b", 3}, {"default", 5}, {"a", 3}, {"b", 5}, {"c", 0}, {"default", 1}}
	ids := make([]uint64, len(puts))
	for i, x := range puts {
		f.use(p, x.tube)
		ids[i] = f.put(p, x.pri, 0)
	}
	c, _ := f.session()
	f.watch(c, "a", "b") // not c
	got := f.reserveIDs(c, 6)
	want := []uint64{ids[6], ids[1], ids[3], ids[0], ids[2], ids[4]}
	assert.Equal(t, want, got)
	_, err := c.Reserve(0)
	assert.ErrorIs(t, err, ErrTimedOut, "tube c is not watched")
}

// Delayed and released jobs keep their id, so at equal priority they still
// come out before younger jobs.
func TestDelayedAndReleasedKeepTheirID(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	old := f.put(s, 7, time.Second)
	mid := f.put(s, 7, 0)
	got := f.reserve(s)
	require.Equal(t, mid, got)
	_, err := s.Release(mid, 7, 0)
	require.NoError(t, err)
	young := f.put(s, 7, 0)
	f.advance(time.Second)
	assert.Equal(t, []uint64{old, mid, young}, f.reserveIDs(s, 3))
}

// Delayed jobs become ready in deadline order, each handed to a waiter the
// moment it is ready: two jobs put a moment apart with the same delay come
// out in put order whatever their priorities (#400).
func TestDelayedComeOutInDeadlineOrder(t *testing.T) {
	f := newFixture(t)
	p, _ := f.session()
	first := f.put(p, 1000, 5*time.Second)
	f.clock.Advance(time.Millisecond)
	second := f.put(p, 1, 5*time.Second)
	w1, _ := f.session()
	w2, _ := f.session()
	f.waitFor(w1, -1)
	f.waitFor(w2, -1)
	f.advance(5 * time.Second) // both are due in this one tick
	id1, err := f.outcome(w1)
	require.NoError(t, err)
	id2, err := f.outcome(w2)
	require.NoError(t, err)
	assert.Equal(t, []uint64{first, second}, []uint64{id1, id2})
}

func TestReleaseAndBury(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	a := f.put(s, 10, 0)
	b := f.put(s, 10, 0)
	c := f.put(s, 10, 0)
	f.reserveIDs(s, 3)

	_, err := s.Release(a, 20, 0)
	require.NoError(t, err)
	js := f.jobStats(a)
	assert.Equal(t, Ready, js.State)
	assert.Equal(t, uint32(20), js.Pri)
	assert.Equal(t, uint32(1), js.Releases)

	_, err = s.Release(b, 3, 2*time.Second)
	require.NoError(t, err)
	js = f.jobStats(b)
	assert.Equal(t, Delayed, js.State)
	assert.Equal(t, uint32(3), js.Pri)
	assert.Equal(t, 2*time.Second, js.Delay)
	assert.Equal(t, 2*time.Second, js.TimeLeft)

	_, err = s.Bury(c, 1)
	require.NoError(t, err)
	js = f.jobStats(c)
	assert.Equal(t, Buried, js.State)
	assert.Equal(t, uint32(1), js.Pri)
	assert.Equal(t, uint32(1), js.Buries)

	// Only a job reserved by this session can be released, buried, touched.
	other, _ := f.session()
	d := f.put(other, 0, 0)
	require.Equal(t, d, f.reserve(other))
	for _, id := range []uint64{a, b, c, d, 999} {
		_, err = s.Release(id, 0, 0)
		assert.ErrorIs(t, err, ErrNotFound, "release %d", id)
		_, err = s.Bury(id, 0)
		assert.ErrorIs(t, err, ErrNotFound, "bury %d", id)
		assert.ErrorIs(t, s.Touch(id), ErrNotFound, "touch %d", id)
	}
}

func TestBuriedIsFIFO(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	ids := []uint64{f.put(s, 9, 0), f.put(s, 1, 0), f.put(s, 5, 0)}
	got := f.reserveIDs(s, 3) // 2nd, 3rd, 1st by priority
	for _, id := range got {
		_, err := s.Bury(id, 0)
		require.NoError(t, err)
	}
	assert.Equal(t, []uint64{ids[1], ids[2], ids[0]}, got)
	for _, want := range got { // kicked, and so reserved, in bury order
		assert.Equal(t, want, f.found(s.PeekBuried()))
		n, _, err := s.Kick(1)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		assert.Equal(t, uint32(1), f.jobStats(want).Kicks)
	}
}

func TestTouchOwnReservationOnly(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	id := f.putTTR(s, 0, 0, 5*time.Second)
	f.reserve(s)
	f.advance(4 * time.Second)
	require.NoError(t, s.Touch(id))
	assert.Equal(t, 5*time.Second, f.jobStats(id).TimeLeft)
	f.advance(5 * time.Second) // the old deadline passed long ago; the new one is now
	assert.Equal(t, Reserved, f.state(id))
	f.advance(1)
	assert.Equal(t, Ready, f.state(id))
	assert.ErrorIs(t, s.Touch(id), ErrNotFound, "no longer reserved")
}

// Jobs due at the same instant become ready in (deadline, id) order, the
// order peek-delayed shows, whichever timer shard or arming order they have.
func TestEqualDeadlinesComeOutByID(t *testing.T) {
	tests := []struct {
		name string
		// setup leaves two or more jobs delayed until t0+5s, returns their
		// ids in the order they must reach the waiters.
		setup func(f *fixture, s *Session) []uint64
	}{
		{"put together", func(f *fixture, s *Session) []uint64 {
			f.put(s, 0, time.Hour) // spend ids so that the pair straddles a shard boundary
			f.put(s, 0, time.Hour)
			return []uint64{f.put(s, 9, 5*time.Second), f.put(s, 1, 5*time.Second)} // ids 3 and 4
		}},
		{"released after a younger put", func(f *fixture, s *Session) []uint64 {
			old := f.put(s, 0, 0)
			// reserve-job, not reserve: a reserve moves default's waiter
			// cursor (the reference serves it as a waiter), which would
			// change which of the two waiters below comes first.
			_, _, err := s.ReserveJob(old)
			require.NoError(f.t, err)
			for range 3 {
				f.put(s, 0, time.Hour)
			}
			young := f.put(s, 0, 5*time.Second) // id 5: same timer shard as id 1
			_, err = s.Release(old, 0, 5*time.Second)
			require.NoError(f.t, err)
			return []uint64{old, young}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			p, _ := f.session()
			want := tc.setup(f, p)
			assert.Equal(t, want[0], f.found(p.PeekDelayed()))
			var ws []*Session
			for range want {
				w, _ := f.session()
				f.waitFor(w, -1)
				ws = append(ws, w)
			}
			f.advance(5 * time.Second)
			var got []uint64
			for _, w := range ws {
				id, err := f.outcome(w)
				require.NoError(t, err)
				got = append(got, id)
			}
			assert.Equal(t, want, got)
		})
	}
}
