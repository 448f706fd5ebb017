package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// Timers are driven by a manual clock here: the server runs over real TCP,
// but time moves only when the test says (advance), so nothing sleeps.

// clockStart is 2026-01-01T00:00:00Z, a whole second.
var clockStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()

type manualServer struct {
	*Server
	clk *jobs.ManualClock
	q   *jobs.Queue
}

// startManual starts a server on a queue with a manual clock. The test owns
// the queue, so nothing drives its timers but advance.
func startManual(t *testing.T, mutate ...func(*Config)) *manualServer {
	clk := jobs.NewManualClock(clockStart)
	q := jobs.New(jobs.Config{Clock: clk})
	s := startBackend(t, Backend{Queue: q}, mutate...)
	return &manualServer{Server: s, clk: clk, q: q}
}

// advance moves time forward and fires what came due.
func (m *manualServer) advance(d time.Duration) {
	m.clk.Advance(d)
	m.q.Tick()
}

// waiters waits until n clients are blocked in reserve.
func (m *manualServer) waiters(t *testing.T, n int64) {
	t.Helper()
	require.Eventually(t, func() bool { return m.q.Stats().Waiting == n }, ioTimeout, time.Millisecond)
}

func TestTTRExpiry(t *testing.T) {
	m := startManual(t)
	a, b := dial(t, m.Server), dial(t, m.Server)
	a.Do("put 0 0 2 1\r\nx\r\nreserve\r\n", "INSERTED 1\r\nRESERVED 1 1\r\nx\r\n")
	b.Send("reserve\r\nlist-tube-used\r\n")
	m.waiters(t, 1)
	m.advance(2 * time.Second) // the deadline itself: not yet expired
	assert.Equal(t, int64(1), m.q.Stats().Waiting)
	a.Do("touch 1\r\n", "TOUCHED\r\n") // a new deadline 2s from now
	m.advance(2*time.Second + 10*time.Millisecond)
	b.Expect("RESERVED 1 1\r\nx\r\nUSING default\r\n")
	a.Do("delete 1\r\n", "NOT_FOUND\r\n")
	js, err := m.q.StatsJob(1)
	require.NoError(t, err)
	assert.Equal(t, uint32(1), js.Timeouts)
	assert.Equal(t, uint64(1), m.q.Stats().JobTimeouts)
}

func TestDeadlineSoon(t *testing.T) {
	m := startManual(t)
	c := dial(t, m.Server)
	c.Do("put 0 0 3 1\r\nx\r\nreserve\r\n", "INSERTED 1\r\nRESERVED 1 1\r\nx\r\n")
	// Waiting: woken a second before the TTR ends, then the pipelined rest.
	c.Send("reserve\r\nlist-tube-used\r\n")
	m.waiters(t, 1)
	m.advance(time.Second)
	m.advance(time.Second + 10*time.Millisecond)
	c.Expect("DEADLINE_SOON\r\nUSING default\r\n")
	// Within the margin a reserve answers at once, unless a job is ready.
	c.Do("reserve-with-timeout 10\r\n", "DEADLINE_SOON\r\n")
	c.Do("reserve-job 1\r\n", "NOT_FOUND\r\n")
	c.Do("put 0 0 10 1\r\ny\r\nreserve\r\n", "INSERTED 2\r\nRESERVED 2 1\r\ny\r\n")
}

func TestReserveTimeout(t *testing.T) {
	m := startManual(t)
	c := dial(t, m.Server)
	c.Send("reserve-with-timeout 5\r\nlist-tube-used\r\n")
	m.waiters(t, 1)
	m.advance(4 * time.Second)
	assert.Equal(t, int64(1), m.q.Stats().Waiting, "not timed out after 4s")
	m.advance(time.Second + 10*time.Millisecond)
	c.Expect("TIMED_OUT\r\nUSING default\r\n")
	c.Do("reserve-with-timeout 0\r\n", "TIMED_OUT\r\n")
}

func TestPauseTube(t *testing.T) {
	m := startManual(t)
	c, w := dial(t, m.Server), dial(t, m.Server)
	c.Do("put 0 0 10 1\r\nx\r\npause-tube default 10\r\n", "INSERTED 1\r\nPAUSED\r\n")
	w.Do("reserve-with-timeout 0\r\n", "TIMED_OUT\r\n")
	c.Do("stats-tube default\r\n", tubeStatsDoc("default", 1, 10, 10, 2, 2, 0))
	w.Send("reserve\r\n")
	m.waiters(t, 1)
	m.advance(5 * time.Second)
	c.Do("stats-tube default\r\n", tubeStatsDoc("default", 1, 10, 5, 2, 2, 1))
	m.advance(5*time.Second + 10*time.Millisecond)
	w.Expect("RESERVED 1 1\r\nx\r\n")
}

func TestDelayedJobWakesWaiter(t *testing.T) {
	m := startManual(t)
	c, w := dial(t, m.Server), dial(t, m.Server)
	c.Do("put 0 5 10 1\r\nx\r\n", "INSERTED 1\r\n")
	w.Send("reserve\r\n")
	m.waiters(t, 1)
	m.advance(5*time.Second + 10*time.Millisecond)
	w.Expect("RESERVED 1 1\r\nx\r\n")
}

func TestDrainMode(t *testing.T) {
	m := startManual(t)
	c := dial(t, m.Server)
	m.q.SetDraining(true)
	// The whole body is read before DRAINING; the id is spent.
	c.Do("put 0 0 10 3\r\nabc\r\nlist-tube-used\r\n", "DRAINING\r\nUSING default\r\n")
	m.q.SetDraining(false)
	c.Do("put 0 0 10 1\r\nx\r\n", "INSERTED 2\r\n")
}

// TestRealTimers runs the engine's own timer driver (a queue the server
// created) through one TTR expiry and one reserve timeout: one to two
// seconds of real time.
func TestRealTimers(t *testing.T) {
	s := startServer(t)
	a, b := dial(t, s), dial(t, s)
	a.Do("put 0 0 1 1\r\nx\r\nreserve\r\n", "INSERTED 1\r\nRESERVED 1 1\r\nx\r\n")
	a.Do("reserve\r\n", "DEADLINE_SOON\r\n") // TTR 1: always within the margin
	b.Do("reserve\r\n", "RESERVED 1 1\r\nx\r\n")
	b.Do("delete 1\r\nreserve-with-timeout 1\r\n", "DELETED\r\nTIMED_OUT\r\n")
}
