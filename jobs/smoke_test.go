package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func body(s string) []byte { return []byte(s) }

func TestSmokeFlows(t *testing.T) {
	clk := NewManualClock(1_000_000_000_000)
	q := New(Config{Clock: clk})
	p := q.NewSession(nil)
	wakes := 0
	c := q.NewSession(func() { wakes++ })

	id, _, err := p.Put(PutRequest{Pri: 5, TTR: 2 * time.Second, Owned: body("a")})
	require.NoError(t, err)
	require.Equal(t, uint64(1), id)
	d, err := c.Reserve(-1)
	require.NoError(t, err)
	require.Equal(t, "a", string(d.Body()))

	// Blocking reserve, satisfied by a put from another session.
	_, err = c.Delete(id)
	require.NoError(t, err)
	_, err = c.Reserve(-1)
	require.ErrorIs(t, err, ErrWaiting)
	id2, _, err := p.Put(PutRequest{Pri: 1, Owned: body("b")})
	require.NoError(t, err)
	require.Equal(t, 1, wakes)
	d, err = c.TakeOutcome()
	require.NoError(t, err)
	require.Equal(t, id2, d.ID)

	// TTR expiry through the wheel.
	clk.Advance(time.Second)
	q.Tick()
	st, err := q.StatsJob(id2)
	require.NoError(t, err)
	require.Equal(t, Reserved, st.State)
	clk.Advance(time.Second + time.Millisecond)
	q.Tick()
	st, err = q.StatsJob(id2)
	require.NoError(t, err)
	require.Equal(t, Ready, st.State)
	require.Equal(t, uint32(1), st.Timeouts)

	// Delay.
	id3, _, err := p.Put(PutRequest{Delay: 5 * time.Second, Owned: body("c")})
	require.NoError(t, err)
	require.Equal(t, int64(1), q.Stats().Delayed)
	clk.Advance(5 * time.Second)
	q.Tick()
	st, err = q.StatsJob(id3)
	require.NoError(t, err)
	require.Equal(t, Ready, st.State)

	// Reserve with timeout.
	_, err = c.Reserve(-1) // gets id2 (pri 1)
	require.NoError(t, err)
	_, err = c.Reserve(-1) // gets id3
	require.NoError(t, err)
	_, err = c.Reserve(3 * time.Second)
	require.ErrorIs(t, err, ErrDeadlineSoon, "TTR 1s: always within the margin")
	_, _, err = p.Put(PutRequest{Owned: body("d")})
	require.NoError(t, err)
	d, err = c.Reserve(3 * time.Second)
	require.NoError(t, err, "a ready job beats DEADLINE_SOON")
	for _, id := range []uint64{id2, id3, d.ID} {
		_, err = c.Delete(id)
		require.NoError(t, err)
	}
	_, err = c.Reserve(3 * time.Second)
	require.ErrorIs(t, err, ErrWaiting)
	clk.Advance(3 * time.Second)
	q.Tick()
	_, err = c.TakeOutcome()
	require.ErrorIs(t, err, ErrTimedOut)

	c.Close()
	s := q.Stats()
	require.Equal(t, int64(0), s.Ready)
	require.Equal(t, int64(0), s.Reserved)
	require.Equal(t, int64(1), s.Connections)
}

func TestCancelWait(t *testing.T) {
	clk := NewManualClock(1_000_000_000_000)
	q := New(Config{Clock: clk})
	p := q.NewSession(nil)
	c := q.NewSession(nil)

	_, err := c.Reserve(-1)
	require.ErrorIs(t, err, ErrWaiting)
	_, err = c.CancelWait()
	require.ErrorIs(t, err, ErrTimedOut)
	require.False(t, c.Waiting())
	require.Equal(t, int64(0), q.Stats().Waiting)

	// The session stays usable, and a later put is not handed to it.
	id, _, err := p.Put(PutRequest{Owned: body("x")})
	require.NoError(t, err)
	st, err := q.StatsJob(id)
	require.NoError(t, err)
	require.Equal(t, Ready, st.State)

	// A job handed over before the cancel is returned by it.
	_, err = c.Delete(id)
	require.NoError(t, err)
	_, err = c.Reserve(-1)
	require.ErrorIs(t, err, ErrWaiting)
	id, _, err = p.Put(PutRequest{Owned: body("y")})
	require.NoError(t, err)
	d, err := c.CancelWait()
	require.NoError(t, err)
	require.Equal(t, id, d.ID)
}
