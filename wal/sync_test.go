package wal

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeTimers replaces the writer's sync timer: the test fires it.
type fakeTimers struct {
	mu    sync.Mutex
	c     chan time.Time
	armed chan time.Duration
}

func newFakeTimers() *fakeTimers { return &fakeTimers{armed: make(chan time.Duration, 16)} }

func (ft *fakeTimers) newTimer(d time.Duration) (<-chan time.Time, func() bool) {
	c := make(chan time.Time, 1)
	ft.mu.Lock()
	ft.c = c
	ft.mu.Unlock()
	ft.armed <- d
	return c, func() bool { return true }
}

func (ft *fakeTimers) fire() {
	ft.mu.Lock()
	c := ft.c
	ft.mu.Unlock()
	c <- time.Now()
}

func (f *faults) syncCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.syncs
}

func recv[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

func TestSyncIntervalIsBoundedByATimer(t *testing.T) {
	opts := testOptions(t)
	opts.SyncInterval = 50 * time.Millisecond
	h, f := newFaultHarness(t, opts)
	ft := newFakeTimers()
	h.hooks.newTimer = ft.newTimer
	h.open()
	f.set(func(f *faults) { f.synced = make(chan struct{}, 16) })
	base := f.syncCount()

	_, seq, err := h.q.put("default", 0, 0, "a")
	require.NoError(t, err)
	require.NoError(t, h.wait(seq), "acknowledged once written")
	assert.Equal(t, base, f.syncCount(), "no fsync before the interval")
	assert.Equal(t, 50*time.Millisecond, recv(t, ft.armed, "the sync timer"))

	// More writes within the interval do not arm a second timer.
	_, seq, _ = h.q.put("default", 0, 0, "b")
	require.NoError(t, h.wait(seq))
	assert.Empty(t, ft.armed)

	ft.fire() // the interval passed with no further write: the timer syncs
	recv(t, f.synced, "the timer's fsync")
	assert.Equal(t, base+1, f.syncCount())

	_, seq, _ = h.q.put("default", 0, 0, "c")
	require.NoError(t, h.wait(seq))
	recv(t, ft.armed, "a new timer after the next write")
}

func TestSyncEveryCommitGroupsConcurrentClients(t *testing.T) {
	h, f := newFaultHarness(t, testOptions(t))
	h.open()
	gate := make(chan struct{})
	f.set(func(f *faults) { f.syncGate, f.syncs = gate, 0 })

	_, first, err := h.q.put("default", 0, 0, "first")
	require.NoError(t, err)
	// The writer is now stuck in the first fsync; clients keep coming.
	var wg sync.WaitGroup
	seqs := make([]uint64, 20)
	for i := range seqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, s, err := h.q.put("default", 0, 0, "later")
			assert.NoError(t, err)
			seqs[i] = s
		}()
	}
	wg.Wait()
	c, _ := h.l.Committed()
	assert.Less(t, c, first, "nothing acknowledged before its fsync")
	close(gate)
	for _, s := range append(seqs, first) {
		require.NoError(t, h.wait(s))
	}
	assert.LessOrEqual(t, f.syncCount(), 3, "one fsync per batch, not per client")
}

func TestNoSyncNeverSyncsForAcks(t *testing.T) {
	opts := testOptions(t)
	opts.NoSync = true
	h, f := newFaultHarness(t, opts)
	ft := newFakeTimers()
	h.hooks.newTimer = ft.newTimer
	h.open()
	base := f.syncCount()
	for range 50 {
		_, seq, err := h.q.put("default", 0, 0, "x")
		require.NoError(t, err)
		require.NoError(t, h.wait(seq))
	}
	assert.Equal(t, base, f.syncCount())
	assert.Empty(t, ft.armed)
	h.close()
	assert.Greater(t, f.syncCount(), base, "Close syncs")
}

func TestSecondOpenIsRefused(t *testing.T) {
	dir := testDir(t)
	l, err := Open(dir, Options{})
	require.NoError(t, err)
	_, err = Open(dir, Options{})
	require.ErrorIs(t, err, ErrLocked)
	assert.Contains(t, err.Error(), "lock")
	require.NoError(t, l.Close())
	l, err = Open(dir, Options{})
	require.NoError(t, err, "free again after Close")
	require.NoError(t, l.Close())
	assert.ErrorIs(t, l.Close(), ErrClosed)
}

func TestOpenValidates(t *testing.T) {
	_, err := Open(testDir(t)+"/missing", Options{})
	assert.Error(t, err, "the directory must exist")
	_, err = Open(testDir(t), Options{SegmentSize: 10})
	assert.Error(t, err)
	_, err = Open(testDir(t), Options{SyncInterval: -1})
	assert.Error(t, err)
}

// TestSyncIntervalCoversWritesDuringTheFsync: what is written while the
// timer's fsync runs is not covered by it, and no later write may come to
// arm the next timer: the sync goroutine arms it itself, so those records
// too reach the disk within the interval.
func TestSyncIntervalCoversWritesDuringTheFsync(t *testing.T) {
	opts := testOptions(t)
	opts.SyncInterval = 50 * time.Millisecond
	h, f := newFaultHarness(t, opts)
	ft := newFakeTimers()
	h.hooks.newTimer = ft.newTimer
	h.open()
	_, seq, err := h.q.put("default", 0, 0, "a")
	require.NoError(t, err)
	require.NoError(t, h.wait(seq))
	recv(t, ft.armed, "the sync timer")

	gate, begun := make(chan struct{}), make(chan struct{}, 16)
	f.set(func(f *faults) { f.syncGate, f.syncing, f.synced = gate, begun, make(chan struct{}, 16) })
	ft.fire() // the timer's fsync starts and waits at the gate
	recv(t, begun, "the timer's fsync")
	_, seq, err = h.q.put("default", 0, 0, "b, written while the fsync runs")
	require.NoError(t, err)
	require.NoError(t, h.wait(seq), "acknowledged once written")
	close(gate)
	recv(t, f.synced, "the timer's fsync")
	assert.Equal(t, 50*time.Millisecond, recv(t, ft.armed, "a new timer for b, with no write after it"))
	ft.fire()
	recv(t, begun, "the fsync that covers b")
	recv(t, f.synced, "the fsync that covers b")
	// synced is signalled as the fsync returns, before the sync goroutine
	// moves the durable mark: wait for the mark, not a fixed moment.
	require.Eventually(t, func() bool {
		h.l.mu.Lock()
		defer h.l.mu.Unlock()
		return h.l.durableIndex == h.l.writtenIndex
	}, 30*time.Second, time.Millisecond, "b durable after the second timer's fsync")
}
