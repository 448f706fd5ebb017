package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runQueue starts q.Run and stops it when the test ends.
func runQueue(t *testing.T, q *Queue) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		q.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// A timer armed while Run is between reading the next deadline and going
// to sleep must still wake it: Run must not sleep through it.
func TestRunDoesNotSleepThroughATimerArmedAsItPlans(t *testing.T) {
	clk := NewManualClock(t0)
	q := New(Config{Clock: clk})
	woken := make(chan struct{}, 1)
	c := q.NewSession(func() { woken <- struct{}{} })
	_, err := c.Reserve(-1)
	require.ErrorIs(t, err, ErrWaiting)
	p := q.NewSession(nil)
	first := true
	testHookRunIdle = func() {
		if !first {
			return
		}
		first = false
		_, _, err := p.Put(PutRequest{Delay: time.Millisecond, Owned: body("x")})
		assert.NoError(t, err)
		clk.Advance(time.Millisecond) // due before Run wakes on its own
	}
	t.Cleanup(func() { testHookRunIdle = nil })
	runQueue(t, q)
	select {
	case <-woken:
	case <-time.After(30 * time.Second): // a bound, not a clock: Run would sleep an hour
		t.Fatal("Run slept through a timer armed while it planned its sleep")
	}
	d, err := c.TakeOutcome()
	require.NoError(t, err)
	assert.Equal(t, "x", string(d.Body()))
}
