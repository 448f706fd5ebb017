package wheel_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs/internal/wheel"
)

const (
	ms  = int64(time.Millisecond)
	sec = int64(time.Second)
	// start is a realistic Unix-epoch time in nanoseconds.
	start = int64(1_700_000_000) * sec
)

// timers returns n timers whose owners are their indexes.
func timers(n int) []wheel.Timer[int] {
	ts := make([]wheel.Timer[int], n)
	for i := range ts {
		ts[i].Owner = i
	}
	return ts
}

// advance is Advance into a fresh slice.
func advance(w *wheel.Wheel[int], now int64) []int {
	return w.Advance(now, nil)
}

func TestZeroTimerIsUnarmed(t *testing.T) {
	var tm wheel.Timer[int]
	assert.False(t, tm.Armed())
	w := wheel.New[int](start, time.Millisecond)
	w.Cancel(&tm) // no-op
	assert.Equal(t, 0, w.Len())
	_, ok := w.Next()
	assert.False(t, ok)
	assert.Empty(t, advance(w, start+sec))
}

func TestFiresAtDeadlineNotBefore(t *testing.T) {
	w := wheel.New[int](start, time.Millisecond)
	ts := timers(1)
	w.Schedule(&ts[0], start+5*ms)
	require.True(t, ts[0].Armed())
	assert.Equal(t, start+5*ms, ts[0].When())
	assert.Equal(t, 1, w.Len())

	assert.Empty(t, advance(w, start+5*ms-1))
	assert.True(t, ts[0].Armed())
	assert.Equal(t, []int{0}, advance(w, start+5*ms))
	assert.False(t, ts[0].Armed())
	assert.Equal(t, 0, w.Len())
	assert.Empty(t, advance(w, start+time.Hour.Nanoseconds()), "fires once")
}

func TestCancel(t *testing.T) {
	w := wheel.New[int](start, time.Millisecond)
	ts := timers(3)
	for i := range ts {
		w.Schedule(&ts[i], start+int64(i+1)*sec)
	}
	w.Cancel(&ts[1])
	assert.False(t, ts[1].Armed())
	assert.Equal(t, 2, w.Len())
	w.Cancel(&ts[1]) // already unarmed: no-op
	assert.Equal(t, 2, w.Len())
	assert.Equal(t, []int{0, 2}, advance(w, start+10*sec))
	assert.Equal(t, 0, w.Len())
}

func TestRearmMovesTheTimer(t *testing.T) {
	w := wheel.New[int](start, time.Millisecond)
	ts := timers(1)
	w.Schedule(&ts[0], start+10*sec)
	w.Schedule(&ts[0], start+2*sec) // earlier
	assert.Equal(t, 1, w.Len())
	assert.Equal(t, start+2*sec, ts[0].When())
	assert.Empty(t, advance(w, start+2*sec-1))
	w.Schedule(&ts[0], start+time.Hour.Nanoseconds()) // later, after cascading started
	assert.Empty(t, advance(w, start+10*sec))
	assert.Equal(t, 1, w.Len())
	assert.Equal(t, []int{0}, advance(w, start+time.Hour.Nanoseconds()))
}

func TestOrderByDeadlineThenScheduling(t *testing.T) {
	w := wheel.New[int](start, time.Millisecond)
	ts := timers(8)
	// Deadlines across levels and within one tick, scheduled out of order.
	w.Schedule(&ts[0], start+70*sec)   // level 2 or above
	w.Schedule(&ts[1], start+1*ms+300) // sub-tick, later within tick 1
	w.Schedule(&ts[2], start+1*ms+100)
	w.Schedule(&ts[3], start+70*sec) // equal deadline: after 0
	w.Schedule(&ts[4], start+100*ms)
	w.Schedule(&ts[5], start+1*ms+100) // equal to 2: after it
	w.Schedule(&ts[6], start+70*sec)
	w.Schedule(&ts[0], start+70*sec) // re-armed: now after 3 and 6
	w.Schedule(&ts[7], start-sec)    // already past

	assert.Equal(t, []int{7, 2, 5, 1, 4, 3, 6, 0}, advance(w, start+time.Hour.Nanoseconds()))
}

func TestPastDeadlinesFireOnNextAdvance(t *testing.T) {
	w := wheel.New[int](start, time.Millisecond)
	ts := timers(3)
	w.Schedule(&ts[0], start)       // exactly now
	w.Schedule(&ts[1], start-5*sec) // long ago
	w.Schedule(&ts[2], math.MinInt64)
	next, ok := w.Next()
	require.True(t, ok)
	assert.LessOrEqual(t, next, int64(math.MinInt64))
	// Advance to the current time (or earlier) still fires them.
	assert.Equal(t, []int{2, 1, 0}, advance(w, start-sec))
	assert.Equal(t, 0, w.Len())
}

func TestAdvanceBackwardsIsIgnored(t *testing.T) {
	w := wheel.New[int](start, time.Millisecond)
	ts := timers(2)
	assert.Empty(t, advance(w, start+10*sec))
	w.Schedule(&ts[0], start+5*sec) // before the wheel's time: due
	w.Schedule(&ts[1], start+10*sec+1)
	assert.Equal(t, []int{0}, advance(w, start)) // backwards: taken as start+10s
	assert.Empty(t, advance(w, start+10*sec))
	assert.Equal(t, []int{1}, advance(w, start+10*sec+1))
}

func TestSubTickDeadlines(t *testing.T) {
	w := wheel.New[int](start, time.Second) // a coarse tick
	ts := timers(4)
	w.Schedule(&ts[0], start+100*ms) // within the current tick
	w.Schedule(&ts[1], start+700*ms)
	w.Schedule(&ts[2], start+2*sec+500*ms) // within a future tick
	w.Schedule(&ts[3], start+2*sec+1)

	assert.Equal(t, []int{0}, advance(w, start+500*ms))
	assert.Empty(t, advance(w, start+700*ms-1))
	assert.Equal(t, []int{1}, advance(w, start+700*ms))
	assert.Empty(t, advance(w, start+2*sec))
	assert.Equal(t, []int{3}, advance(w, start+2*sec+200*ms))
	assert.Empty(t, advance(w, start+2*sec+500*ms-1))
	next, ok := w.Next()
	require.True(t, ok)
	assert.LessOrEqual(t, next, start+2*sec+500*ms)
	assert.Greater(t, next, start+2*sec+500*ms-1, "exact after a filtering pass")
	assert.Equal(t, []int{2}, advance(w, start+2*sec+500*ms))
}

func TestNextIsNeverLate(t *testing.T) {
	w := wheel.New[int](start, time.Millisecond)
	_, ok := w.Next()
	assert.False(t, ok)
	ts := timers(3)
	w.Schedule(&ts[0], start+90*sec)
	w.Schedule(&ts[1], start+3*ms+7)
	w.Schedule(&ts[2], start+3*ms+3)
	next, ok := w.Next()
	require.True(t, ok)
	assert.Equal(t, start+3*ms+3, next)

	w.Cancel(&ts[2]) // may leave Next early, never late
	next, _ = w.Next()
	assert.LessOrEqual(t, next, start+3*ms+7)

	assert.Equal(t, []int{1}, advance(w, start+3*ms+7))
	next, _ = w.Next()
	assert.LessOrEqual(t, next, start+90*sec)
	assert.Greater(t, next, start+3*ms+7)
}

func TestLen(t *testing.T) {
	w := wheel.New[int](start, time.Millisecond)
	ts := timers(10)
	for i := range ts {
		w.Schedule(&ts[i], start+int64(i)*sec)
	}
	assert.Equal(t, 10, w.Len())
	w.Schedule(&ts[3], start+100*sec) // re-arm does not count twice
	assert.Equal(t, 10, w.Len())
	w.Cancel(&ts[4])
	assert.Equal(t, 9, w.Len())
	assert.Equal(t, []int{0, 1, 2, 5}, advance(w, start+5*sec)) // 3 moved, 4 cancelled
	assert.Equal(t, 5, w.Len())
}

func TestTimesBeforeTheOrigin(t *testing.T) {
	w := wheel.New[int](-10*sec, time.Millisecond)
	ts := timers(2)
	w.Schedule(&ts[0], -5*sec)
	w.Schedule(&ts[1], 5*sec)
	assert.Empty(t, advance(w, -5*sec-1))
	assert.Equal(t, []int{0}, advance(w, -5*sec))
	assert.Equal(t, []int{1}, advance(w, 5*sec))
}

func TestMisuse(t *testing.T) {
	assert.Panics(t, func() { wheel.New[int](0, 0) })
	a := wheel.New[int](start, time.Millisecond)
	b := wheel.New[int](start, time.Millisecond)
	ts := timers(1)
	a.Schedule(&ts[0], start+sec)
	assert.Panics(t, func() { b.Cancel(&ts[0]) })
	assert.Panics(t, func() { b.Schedule(&ts[0], start+2*sec) })
	assert.Equal(t, 1, a.Len())
	assert.Equal(t, 0, b.Len())
	a.Cancel(&ts[0])
	b.Schedule(&ts[0], start+2*sec) // fine once cancelled
	assert.Equal(t, []int{0}, advance(b, start+2*sec))
}

func TestAdvanceAppendsToDst(t *testing.T) {
	w := wheel.New[int](start, time.Millisecond)
	ts := timers(2)
	w.Schedule(&ts[0], start+ms)
	w.Schedule(&ts[1], start+2*ms)
	dst := []int{-1}
	dst = w.Advance(start+ms, dst)
	dst = w.Advance(start+2*ms, dst)
	assert.Equal(t, []int{-1, 0, 1}, dst)
}
