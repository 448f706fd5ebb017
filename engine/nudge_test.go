package engine

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// fakeTimers replaces the Server's timers: they fire only when the test
// says so.
type fakeTimers struct {
	mu      sync.Mutex
	pending []chan time.Time
	armed   []time.Duration
}

func (f *fakeTimers) newTimer(d time.Duration) (<-chan time.Time, func() bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan time.Time, 1)
	f.pending = append(f.pending, ch)
	f.armed = append(f.armed, d)
	return ch, func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		for i, p := range f.pending {
			if p == ch {
				f.pending = append(f.pending[:i], f.pending[i+1:]...)
				return true
			}
		}
		return false
	}
}

// fire fires every pending timer and reports how many there were.
func (f *fakeTimers) fire() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := len(f.pending)
	for _, ch := range f.pending {
		ch <- time.Time{}
	}
	f.pending = nil
	return n
}

func (f *fakeTimers) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.armed)
}

func startWithTimers(t *testing.T, f *fakeTimers, mutate func(*Config), q *jobs.Queue) *Server {
	cfg := Config{Addr: "127.0.0.1:0", Logger: testLogger(t), EventLoops: 2}
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := Listen(context.Background(), cfg)
	require.NoError(t, err)
	s.newTimer = f.newTimer
	require.NoError(t, s.Serve(Backend{Queue: q}))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
		defer cancel()
		require.NoError(t, s.Stop(ctx))
	})
	return s
}

// TestNoTimerWhileIdle: serving clients arms no engine timer; a slow reader
// arms the nudger, which stops re-arming once the reader has caught up.
func TestNoTimerWhileIdle(t *testing.T) {
	f := &fakeTimers{}
	s := startWithTimers(t, f, func(c *Config) { c.SlowReaderLimit = 64 << 10 }, jobs.New(jobs.Config{}))
	a, b := dial(t, s), dial(t, s)
	body := bytes.Repeat([]byte("b"), 32<<10)
	a.Do(fmt.Sprintf("put 0 0 10 %d\r\n%s\r\n", len(body), body), "INSERTED 1\r\n")
	b.Do("reserve-with-timeout 0\r\n", "RESERVED 1 32768\r\n"+string(body)+"\r\n")
	b.Do("release 1 0 0\r\n", "RELEASED\r\n")
	assert.Zero(t, f.count(), "no timer while nothing is stalled")

	const peeks = 200
	a.Send(strings.Repeat("peek 1\r\n", peeks))
	require.Eventually(t, func() bool { return f.count() == 1 }, ioTimeout, time.Millisecond,
		"a stalled connection arms the nudger")
	want := fmt.Sprintf("FOUND 1 %d\r\n%s\r\n", len(body), body)
	done := make(chan struct{})
	go func() { // the reader catches up, helped by each nudge
		defer close(done)
		for range peeks {
			a.Expect(want)
		}
	}()
	for fired := false; !fired; {
		select {
		case <-done:
			fired = true
		case <-time.After(time.Millisecond):
			f.fire()
		}
	}
	require.Eventually(t, func() bool { f.fire(); return stalled(s) == 0 }, ioTimeout, time.Millisecond)
	f.fire() // the nudger finds no one to poll and goes to sleep
	n := f.count()
	a.Do("list-tube-used\r\n", "USING default\r\n")
	f.fire()
	assert.Equal(t, n, f.count(), "no timer once nobody is stalled")
}

// TestIdleSweeperSleeps: the idle sweeper arms no timer without a
// connection that could become idle, and then one for the earliest
// deadline.
func TestIdleSweeperSleeps(t *testing.T) {
	f := &fakeTimers{}
	clock := jobs.NewManualClock(0)
	q := jobs.New(jobs.Config{})
	cfg := Config{Addr: "127.0.0.1:0", Logger: testLogger(t), IdleTimeout: time.Minute}
	s, err := Listen(context.Background(), cfg)
	require.NoError(t, err)
	s.newTimer, s.now = f.newTimer, clock.Now
	require.NoError(t, s.Serve(Backend{Queue: q}))
	defer func() { require.NoError(t, s.Stop(context.Background())) }()
	assert.Zero(t, f.count(), "no connection: no timer")

	clock.Advance(10 * time.Second)
	c := dial(t, s)
	c.Do("list-tube-used\r\n", "USING default\r\n")
	require.Eventually(t, func() bool { return f.count() >= 1 }, ioTimeout, time.Millisecond)
	f.mu.Lock()
	assert.Equal(t, time.Minute, f.armed[len(f.armed)-1], "sleeps until the connection could be idle")
	f.mu.Unlock()

	c.Send("reserve\r\n") // reserving: not a candidate
	require.Eventually(t, func() bool {
		s.reg.mu.Lock()
		defer s.reg.mu.Unlock()
		for _, cn := range s.reg.all {
			return cn.idle.reserving.Load()
		}
		return false
	}, ioTimeout, time.Millisecond)
	clock.Advance(2 * time.Minute)
	n, rounds := f.count(), s.sweeps.Load()
	require.Equal(t, 1, f.fire(), "the sweeper sleeps on one timer")
	require.Eventually(t, func() bool { return s.sweeps.Load() > rounds }, ioTimeout, time.Millisecond)
	assert.Equal(t, n, f.count(), "only a reserving connection: no timer")
	assert.Zero(t, f.fire())
	require.Equal(t, int64(1), q.Stats().Waiting, "and it is not closed")
}
