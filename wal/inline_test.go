package wal

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openParked opens and replays the log like open, but leaves the writer and
// compactor unstarted while marking the log running: every step is then an
// inline one, run by the test. unpark starts the goroutines (Close needs
// them).
func (h *harness) openParked() {
	h.t.Helper()
	l, err := openLog(h.dir, h.opts, h.hooks)
	require.NoError(h.t, err)
	q := newFakeQueue(l)
	require.NoError(h.t, l.restore(q))
	l.mu.Lock()
	l.running = true
	l.mu.Unlock()
	h.commit = make(chan struct{}, 1)
	l.Subscribe(func() { signal(h.commit) })
	h.l, h.q = l, q
}

func (h *harness) unpark() { h.l.start(h.q) }

func TestCommitInlineWritesSyncsAndPublishesOnTheCaller(t *testing.T) {
	h, f := newFaultHarness(t, testOptions(t)) // -f0
	h.openParked()
	base := f.syncCount()
	var last uint64
	for _, body := range []string{"a", "b", "c"} {
		_, seq, err := h.q.put("default", 0, 0, body)
		require.NoError(t, err)
		last = seq
	}
	c, _ := h.l.Committed()
	require.Less(t, c, last, "nothing committed before a step")

	require.True(t, h.l.CommitInline(last))
	c, err := h.l.Committed()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, c, last)
	assert.Equal(t, base+1, f.syncCount(), "one fsync for the whole batch, before Committed moved")
	assert.Len(t, h.commit, 1, "subscribers fired by the inline step")
	assert.Equal(t, uint64(1), h.l.Metrics().InlineCommits)

	// Nothing pending: another call commits nothing new and syncs nothing.
	require.True(t, h.l.CommitInline(last))
	assert.Equal(t, base+1, f.syncCount())

	h.unpark()
	h.restartRestores()
}

func TestCommitInlineNoSyncWritesWithoutFsync(t *testing.T) {
	opts := testOptions(t)
	opts.NoSync = true
	h, f := newFaultHarness(t, opts)
	h.openParked()
	base := f.syncCount()
	_, seq, err := h.q.put("default", 0, 0, "x")
	require.NoError(t, err)
	require.True(t, h.l.CommitInline(seq))
	assert.Equal(t, base, f.syncCount())
	h.unpark()
	h.restartRestores()
}

func TestCommitInlineDeclinesWithASyncInterval(t *testing.T) {
	opts := testOptions(t)
	opts.SyncInterval = 50 * time.Millisecond
	h := newHarness(t, opts)
	h.openParked()
	_, seq, err := h.q.put("default", 0, 0, "x")
	require.NoError(t, err)
	assert.False(t, h.l.CommitInline(seq), "-f N: the sync timer is the writer's")
	c, _ := h.l.Committed()
	assert.Less(t, c, seq)
	h.unpark()
	require.NoError(t, h.wait(seq), "the writer commits it")
}

// An inline caller that finds the writer in a step gives up at once; the
// writer's next step commits its record.
func TestCommitInlineDefersToARunningStep(t *testing.T) {
	h, f := newFaultHarness(t, testOptions(t))
	h.open()
	gate := make(chan struct{})
	f.set(func(f *faults) { f.syncGate = gate })
	_, first, err := h.q.put("default", 0, 0, "first")
	require.NoError(t, err)
	// The writer takes "first" and waits in its fsync; wait until it holds
	// the step.
	waitStepHeld(t, h.l)
	_, second, err := h.q.put("default", 0, 0, "second")
	require.NoError(t, err)
	assert.False(t, h.l.CommitInline(second))
	c, _ := h.l.Committed()
	assert.Less(t, c, first, "nothing acknowledged before its fsync")
	close(gate)
	require.NoError(t, h.wait(second))
	assert.Zero(t, h.l.Metrics().InlineCommits)
	h.restartRestores()
}

// Records appended while an inline step runs (after it took the batch)
// are left to the writer, which the inline caller wakes afterwards: the
// writer, woken by their Append, found the step taken and went back to
// waiting.
func TestCommitInlineLeavesLaterRecordsToTheWriter(t *testing.T) {
	h, f := newFaultHarness(t, testOptions(t))
	h.openParked()
	gate := make(chan struct{})
	f.set(func(f *faults) { f.syncGate = gate })
	_, first, err := h.q.put("default", 0, 0, "first")
	require.NoError(t, err)
	done := make(chan bool)
	go func() { done <- h.l.CommitInline(first) }()
	// The inline step waits in its fsync, holding the step.
	waitStepHeld(t, h.l)
	h.unpark()
	_, second, err := h.q.put("default", 0, 0, "second")
	require.NoError(t, err)
	// Let the writer take its wake-ups and find the step busy.
	require.Eventually(t, func() bool { return len(h.l.wake) == 0 }, 30*time.Second, time.Millisecond)
	for range 10 {
		runtime.Gosched()
	}
	close(gate)
	assert.True(t, <-done)
	require.NoError(t, h.wait(second), "the record appended during the step is written")
	h.restartRestores()
}

func TestCommitInlineDeclinesWhenNotRunning(t *testing.T) {
	h, f := newFaultHarness(t, testOptions(t))
	h.open()
	// Failed: nothing more is written.
	_, seq, err := h.q.put("default", 0, 0, "x")
	require.NoError(t, err)
	require.NoError(t, h.wait(seq))
	f.set(func(f *faults) { f.syncErr = errors.New("injected fsync failure") })
	_, seq, err = h.q.put("default", 0, 0, "y")
	require.NoError(t, err)
	require.Error(t, h.wait(seq))
	assert.False(t, h.l.CommitInline(seq))
	h.l.Close()
	assert.False(t, h.l.CommitInline(seq), "closed")
	h.l = nil
}

// waitStepHeld returns once some goroutine holds l's step (the writer or an
// inline caller parked in a gated fsync).
func waitStepHeld(t *testing.T, l *Log) {
	t.Helper()
	require.Eventually(t, func() bool {
		if !l.stepMu.TryLock() {
			return true
		}
		l.stepMu.Unlock()
		return false
	}, 30*time.Second, time.Millisecond)
}
