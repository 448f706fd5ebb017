package jobs

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// rateFixture is a queue whose tube "r" allows rate reserves per second,
// with producer p using it and n jobs put.
func rateFixture(t *testing.T, rate float64, n int) (*fixture, *Session) {
	f := newFixture(t)
	require.NoError(t, f.q.SetPolicy("r", Policy{ReserveRate: rate}))
	p, _ := f.session()
	require.NoError(t, p.Use([]byte("r")))
	for range n {
		f.put(p, 1, 0)
	}
	return f, p
}

// take reserves a job without waiting and deletes it.
func (f *fixture) take(s *Session) {
	f.t.Helper()
	_, err := s.Delete(f.reserve(s))
	require.NoError(f.t, err)
}

func rateWorker(f *fixture) (*Session, *wakeCounter) {
	w, wakes := f.session()
	_, err := w.Watch([]byte("r"))
	require.NoError(f.t, err)
	_, err = w.Ignore([]byte("default"))
	require.NoError(f.t, err)
	return w, wakes
}

func TestReserveRateBurstThenOnePerInterval(t *testing.T) {
	f, _ := rateFixture(t, 2, 10)
	w, _ := rateWorker(f)
	f.take(w)
	f.take(w) // burst 2
	_, err := w.Reserve(0)
	require.ErrorIs(t, err, ErrTimedOut, "out of tokens: as if the tube were empty")
	f.advance(499 * time.Millisecond)
	_, err = w.Reserve(0)
	require.ErrorIs(t, err, ErrTimedOut)
	f.advance(time.Millisecond)
	f.take(w)
	f.advance(10 * time.Second) // the bucket fills to its burst, no more
	f.take(w)
	f.take(w)
	_, err = w.Reserve(0)
	require.ErrorIs(t, err, ErrTimedOut)
	st, err := f.q.StatsTube([]byte("r"))
	require.NoError(t, err)
	require.Equal(t, uint64(3), st.RateLimitedWaits)
}

func TestReserveRateWaiterGetsJobWhenTokenArrives(t *testing.T) {
	f, _ := rateFixture(t, 0.5, 3) // burst ceil(0.5) = 1, one token per 2 s
	w, wakes := rateWorker(f)
	f.reserve(w)
	_, err := w.Reserve(-1)
	require.ErrorIs(t, err, ErrWaiting)
	f.advance(1999 * time.Millisecond)
	require.Equal(t, 0, wakes.n)
	f.advance(time.Millisecond)
	require.Equal(t, 1, wakes.n)
	d, err := w.TakeOutcome()
	require.NoError(t, err)
	require.NotZero(t, d.ID)
}

func TestReserveRateTimeoutStillTimesOut(t *testing.T) {
	f, _ := rateFixture(t, 0.1, 3) // a token per 10 s
	w, wakes := rateWorker(f)
	f.reserve(w)
	_, err := w.Reserve(3 * time.Second)
	require.ErrorIs(t, err, ErrWaiting)
	f.advance(3 * time.Second)
	require.Equal(t, 1, wakes.n)
	_, err = w.TakeOutcome()
	require.ErrorIs(t, err, ErrTimedOut)
	f.advance(7 * time.Second) // the token arrives with no one waiting
	f.reserve(w)
}

func TestReserveRateNewJobWaitsForToken(t *testing.T) {
	f, p := rateFixture(t, 1, 1)
	w, wakes := rateWorker(f)
	f.reserve(w)
	_, err := w.Reserve(-1)
	require.ErrorIs(t, err, ErrWaiting)
	f.put(p, 1, 0) // no token: not handed over at once
	require.Equal(t, 0, wakes.n)
	f.advance(time.Second)
	require.Equal(t, 1, wakes.n)
	_, err = w.TakeOutcome()
	require.NoError(t, err)
}

func TestReserveRateRemovedServesWaiters(t *testing.T) {
	f, _ := rateFixture(t, 0.01, 2)
	w, wakes := rateWorker(f)
	f.reserve(w)
	_, err := w.Reserve(-1)
	require.ErrorIs(t, err, ErrWaiting)
	_, err = f.q.RemovePolicy("r")
	require.NoError(t, err)
	require.Equal(t, 1, wakes.n)
	_, err = w.TakeOutcome()
	require.NoError(t, err)
}

// TestReserveRateBound drives a worker that always reserves (and waits)
// on a tube that always has jobs, with the clock moving in random strides
// of 1 ms ticks, and checks the token bucket's promise at every tick: by
// time T (from the policy's start) at most burst + rate*T jobs were handed
// out, and at least that minus one, less what a full bucket cannot hold
// while the hand-off waits for its tick (rate x 1 ms per job).
func TestReserveRateBound(t *testing.T) {
	for _, rate := range []float64{0.3, 1, 2.5, 7, 40} {
		f, p := rateFixture(t, rate, 0)
		burst := math.Ceil(rate)
		rng := rand.New(rand.NewPCG(uint64(rate*10), 1))
		w, _ := rateWorker(f)
		got := 0
		// check holds always; a waiting worker also shows no token was
		// held back (beyond the slack).
		check := func() {
			elapsed := float64(f.clock.Now()-t0) / 1e9
			allowed := burst + rate*elapsed
			require.LessOrEqual(t, float64(got), allowed+1e-6, "rate %v at %.3fs", rate, elapsed)
			if w.Waiting() {
				slack := 1 + rate*0.001*float64(got)
				require.GreaterOrEqual(t, float64(got), allowed-slack-1e-6, "rate %v at %.3fs", rate, elapsed)
			}
		}
		take := func(d JobData) {
			got++
			_, err := w.Delete(d.ID)
			require.NoError(t, err)
			check()
		}
		for step := 0; step < 200; step++ {
			for f.q.stats.sum(cReady) < 3 {
				f.put(p, 1, 0)
			}
			if !w.Waiting() {
				d, err := w.Reserve(-1)
				if err == nil {
					take(d)
					continue
				}
				require.ErrorIs(t, err, ErrWaiting)
				check()
			}
			for range rng.IntN(400) {
				f.advance(time.Millisecond)
				if d, err := w.TakeOutcome(); err == nil {
					take(d)
					break
				}
				check()
			}
		}
	}
}
