package engine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// startIdleServer serves with IdleTimeout on a manual clock that only the
// test moves; the sweeper's timers, in real time, are far off (the test
// sweeps).
func startIdleServer(t *testing.T, timeout time.Duration) (*Server, *jobs.ManualClock, *jobs.Queue) {
	clock := jobs.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	q := jobs.New(jobs.Config{})
	ctx := context.Background()
	s, err := Listen(ctx, Config{Addr: "127.0.0.1:0", Logger: testLogger(t), IdleTimeout: timeout})
	require.NoError(t, err)
	s.now = clock.Now
	require.NoError(t, s.Serve(Backend{Queue: q}))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(ctx, ioTimeout)
		defer cancel()
		require.NoError(t, s.Stop(ctx))
	})
	return s, clock, q
}

// TestIdleTimeout: a connection that sent nothing for the timeout is
// closed; one blocked in reserve is not, and its idle time starts when the
// reserve ends.
func TestIdleTimeout(t *testing.T) {
	s, clock, q := startIdleServer(t, time.Minute)
	idle, worker := dial(t, s), dial(t, s)
	idle.Do("list-tube-used\r\n", "USING default\r\n")
	worker.Send("reserve\r\n")
	require.Eventually(t, func() bool { return q.Stats().Waiting == 1 }, ioTimeout, time.Millisecond)

	sweep := func() { s.reg.wakeIdle(clock.Now(), int64(time.Minute)) }

	clock.Advance(59 * time.Second)
	busy := dial(t, s) // connected late
	sweep()            // nobody is past the timeout yet
	busy.Do("list-tube-used\r\n", "USING default\r\n")
	idle.Do("list-tube-used\r\n", "USING default\r\n") // restarts its idle time

	clock.Advance(61 * time.Second)
	sweep()
	busy.ExpectEOF() // idle since it last spoke, 61s ago
	idle.ExpectEOF()
	require.Equal(t, int64(1), q.Stats().Waiting, "the blocked worker is still connected")

	producer := dial(t, s)
	producer.Do("put 0 0 100 1\r\nx\r\n", "INSERTED 1\r\n")
	worker.Expect("RESERVED 1 1\r\nx\r\n")
	clock.Advance(30 * time.Second)
	sweep()
	worker.Do("touch 1\r\n", "TOUCHED\r\n")

	clock.Advance(61 * time.Second)
	sweep()
	worker.ExpectEOF() // idle since the touch
	producer.ExpectEOF()
}
