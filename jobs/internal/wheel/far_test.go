package wheel_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs/internal/wheel"
)

// Deadlines far away, and Advances over long stretches of time.

func TestHugeJumpFiresEverythingInOrder(t *testing.T) {
	w := wheel.New[int](start, time.Millisecond)
	const n = 1000
	ts := timers(n)
	for i := n - 1; i >= 0; i-- { // scheduled in reverse deadline order
		w.Schedule(&ts[i], start+int64(i)*37*sec+int64(i%7))
	}
	got := advance(w, start+11*time.Hour.Nanoseconds()) // last deadline: 10h16m
	require.Len(t, got, n)
	for i, id := range got {
		require.Equal(t, i, id)
	}
	assert.Equal(t, 0, w.Len())
}

// drive advances w from Next to Next until nothing is armed, checking that
// no timer fires before its deadline and returning the times each fired at.
func drive(t *testing.T, w *wheel.Wheel[int], ts []wheel.Timer[int], maxWakes int) map[int]int64 {
	t.Helper()
	fired := map[int]int64{}
	for wakes := 0; w.Len() > 0; wakes++ {
		require.Less(t, wakes, maxWakes, "too many wake-ups")
		next, ok := w.Next()
		require.True(t, ok)
		for _, id := range advance(w, next) {
			require.GreaterOrEqual(t, next, ts[id].When(), "fired early")
			fired[id] = next
		}
	}
	return fired
}

func TestFarFutureDeadlinesFireExactly(t *testing.T) {
	far := int64(1<<32) * sec // beanstalk's largest delay
	for _, tick := range []time.Duration{time.Second, time.Millisecond, time.Microsecond, time.Nanosecond} {
		t.Run(tick.String(), func(t *testing.T) {
			w := wheel.New[int](start, tick)
			ts := timers(4)
			w.Schedule(&ts[0], start+far)
			w.Schedule(&ts[1], start+far-1)
			w.Schedule(&ts[2], start+far/2+12345)
			w.Schedule(&ts[3], math.MaxInt64)
			fired := drive(t, w, ts, 100)
			assert.Equal(t, map[int]int64{
				0: start + far, 1: start + far - 1, 2: start + far/2 + 12345, 3: math.MaxInt64,
			}, fired)
		})
	}
}

func TestFarFutureNotBeforeDeadline(t *testing.T) {
	far := int64(1<<32) * sec
	w := wheel.New[int](start, time.Microsecond) // 2^32 s is beyond 2^48 ticks
	ts := timers(1)
	w.Schedule(&ts[0], start+far)
	// Step through in uneven strides so cascades happen at many points.
	for now := start; now < start+far; now += far/7 + 99991 {
		require.Empty(t, advance(w, now))
	}
	require.Empty(t, advance(w, start+far-1))
	assert.Equal(t, []int{0}, advance(w, start+far))
}
