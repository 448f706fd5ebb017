package wal

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStallReportsASlowFsync: while an fsync runs for over a second, Stall
// says so (and a change waits); once it returns, Stall is quiet again.
func TestStallReportsASlowFsync(t *testing.T) {
	h, f := newFaultHarness(t, testOptions(t))
	var now atomic.Int64
	now.Store(time.Unix(1_700_000_000, 0).UnixNano())
	h.hooks.now = func() time.Time { return time.Unix(0, now.Load()) }
	h.open()
	assert.Empty(t, h.l.Stall())

	gate := make(chan struct{})
	f.set(func(f *faults) { f.syncGate = gate })
	_, seq, err := h.q.put("default", 0, 0, "waits for the disk")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return h.l.metrics.syncSince.Load() != 0 }, 10*time.Second, time.Millisecond,
		"the writer reached the fsync")
	assert.Empty(t, h.l.Stall(), "not yet a second")
	now.Add(int64(2500 * time.Millisecond))
	assert.Equal(t, "an fsync of the job log has taken 2.5s so far: changes wait for it", h.l.Stall())
	done, _ := h.l.Committed()
	assert.Less(t, done, seq, "the change waits for the fsync")

	close(gate)
	require.NoError(t, h.wait(seq))
	f.set(func(f *faults) { f.syncGate = nil })
	assert.Empty(t, h.l.Stall())
}
