package engine

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// manualTimers collects the functions releaseSoon schedules, so a test
// runs them when it chooses instead of waiting seconds.
type manualTimers struct {
	mu  sync.Mutex
	fns []func()
	ds  []time.Duration
}

func (m *manualTimers) after(d time.Duration, f func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fns, m.ds = append(m.fns, f), append(m.ds, d)
}

// fire runs the oldest scheduled function and reports its delay.
func (m *manualTimers) fire(t *testing.T) time.Duration {
	m.mu.Lock()
	require.NotEmpty(t, m.fns, "nothing scheduled")
	f, d := m.fns[0], m.ds[0]
	m.fns, m.ds = m.fns[1:], m.ds[1:]
	m.mu.Unlock()
	f()
	return d
}

func (m *manualTimers) pending() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.fns)
}

// Slow readers that leave while memory is being handed back (or during the
// gap after it) get a hand-back of their own when the gap ends: none is
// dropped, and a burst of closes costs one hand-back, not one each.
func TestReleaseRequestedDuringTheGapIsServedAfterIt(t *testing.T) {
	var m manualTimers
	s := &Server{}
	s.afterFunc = m.after

	s.releaseSoon()
	s.releaseSoon() // a second close in the same second
	require.Equal(t, 1, m.pending(), "one hand-back for a burst of closes")
	assert.Equal(t, time.Second, m.fire(t))
	assert.Equal(t, int64(1), s.releases.Load())

	s.releaseSoon() // a close during the gap
	require.Equal(t, 1, m.pending(), "only the gap's end is scheduled")
	assert.Equal(t, releaseEvery, m.fire(t), "the gap ends")
	require.Equal(t, 1, m.pending(), "the close during the gap is served after it")
	m.fire(t)
	assert.Equal(t, int64(2), s.releases.Load())

	m.fire(t) // the second gap ends with nothing new
	assert.Zero(t, m.pending(), "nothing more to hand back")
}
