package wal

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// faults is a simulated disk under a real directory: a capacity (the files
// in the directory may not exceed it: a write that goes over fails with
// ENOSPC after reaching the file, like a real partial write) and errors to
// inject into writes and fsyncs.
type faults struct {
	mu       sync.Mutex
	dir      string
	capacity int64 // 0: unlimited
	writeErr error // every segment write fails with it (after leaving garbage)
	syncErr  error
	truncErr error // the compactor's truncation fails with it
	truncs   int
	syncs    int
	writes   int
	// syncGate, if set, makes each Sync wait for a value from it (outside
	// the lock); syncing gets a value as each Sync begins, synced after it.
	syncGate chan struct{}
	syncing  chan struct{}
	synced   chan struct{}
}

func (f *faults) set(fn func(f *faults)) {
	f.mu.Lock()
	fn(f)
	f.mu.Unlock()
}

func (f *faults) usage() int64 {
	ents, _ := os.ReadDir(f.dir)
	var n int64
	for _, e := range ents {
		if info, err := e.Info(); err == nil && !e.IsDir() && e.Name() != "lock" {
			n += info.Size()
		}
	}
	return n
}

func (f *faults) hooks() hooks {
	return hooks{
		openSegment: func(path string, create bool) (appendFile, error) {
			st, err := openSegment(path, create)
			if err != nil {
				return nil, err
			}
			return &faultFile{appendFile: st, f: f, path: path}, nil
		},
		cutFront: func(l *Log, index uint64) (segment, error) {
			f.mu.Lock()
			err := f.truncErr
			f.truncs++
			f.mu.Unlock()
			if err != nil {
				return segment{}, &os.PathError{Op: "truncate", Path: f.dir, Err: err}
			}
			return l.cutFront(index)
		},
		makeReserve: func(path string, size int64) error {
			f.mu.Lock()
			full := f.capacity > 0 && f.usage()+size > f.capacity
			f.mu.Unlock()
			if full {
				return &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
			}
			return writeReserve(path, size)
		},
	}
}

// faultFile is a segment file on the simulated disk.
type faultFile struct {
	appendFile
	f    *faults
	path string
}

func (s *faultFile) Writev(bufs [][]byte) (int, error) {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.writes++
	if err := s.f.writeErr; err != nil {
		n, _ := s.appendFile.Writev([][]byte{[]byte("\x40partial write garbage")})
		return n, &os.PathError{Op: "write", Path: s.path, Err: err}
	}
	n, err := s.appendFile.Writev(bufs)
	if err != nil {
		return n, err
	}
	if s.f.capacity > 0 && s.f.usage() > s.f.capacity {
		return n, &os.PathError{Op: "write", Path: s.path, Err: syscall.ENOSPC}
	}
	return n, nil
}

func (s *faultFile) Sync() error {
	s.f.mu.Lock()
	gate, begun, done := s.f.syncGate, s.f.syncing, s.f.synced
	s.f.mu.Unlock()
	if begun != nil {
		begun <- struct{}{}
	}
	if gate != nil {
		<-gate
	}
	if done != nil {
		defer func() { done <- struct{}{} }()
	}
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	s.f.syncs++
	if s.f.syncErr != nil {
		return &os.PathError{Op: "fsync", Path: s.path, Err: s.f.syncErr}
	}
	return s.appendFile.Sync()
}

func newFaultHarness(t *testing.T, opts Options) (*harness, *faults) {
	h := newHarness(t, opts)
	f := &faults{dir: h.dir}
	h.hooks = f.hooks()
	return h, f
}

func TestDiskFull(t *testing.T) {
	opts := testOptions(t)
	opts.SegmentSize = 2048 // reserve: 64 KiB
	h, f := newFaultHarness(t, opts)
	h.open()
	body := strings.Repeat("b", 200)
	var acked []uint64
	for range 100 {
		id, seq, err := h.q.put("default", 0, 0, body)
		require.NoError(t, err)
		require.NoError(t, h.wait(seq))
		acked = append(acked, id)
	}
	f.set(func(f *faults) { f.capacity = f.usage() + 3000 })

	refused := 0
	for range 200 {
		id, seq, err := h.q.put("default", 0, 0, body)
		if err != nil {
			require.ErrorIs(t, err, jobs.ErrNoSpace)
			refused++
			continue
		}
		require.Zero(t, refused, "once refused, puts stay refused until space is freed")
		require.NoError(t, h.wait(seq), "an accepted put is logged, using the reserve")
		acked = append(acked, id)
	}
	require.Positive(t, refused, "the disk filled")
	c, err := h.l.Committed()
	require.NoError(t, err, "a full disk is not a journal failure")
	_, err = h.q.bury(acked[0], 1)
	require.NoError(t, err, "updates are still logged in the reserve's room")

	// Deletes of existing jobs still succeed.
	for _, id := range acked[:len(acked)-5] {
		seq, err := h.q.del(id)
		require.NoError(t, err)
		require.NoError(t, h.wait(seq))
	}
	require.Greater(t, h.l.committed.Load(), c)

	// Compaction frees the segments of the deleted jobs; the reserve comes
	// back and puts are accepted again.
	h.settle()
	h.l.mu.Lock()
	low := h.l.lowSpace
	h.l.mu.Unlock()
	require.False(t, low, "space recovered")
	id, seq, err := h.q.put("default", 0, 0, "after recovery")
	require.NoError(t, err)
	require.NoError(t, h.wait(seq))

	want := h.q.loggedCopy()
	assert.Contains(t, want, id)
	assert.Len(t, want, 6)
	f.set(func(f *faults) { f.capacity = 0 })
	h.restart()
	requireRestored(t, want, h.q)
}

func TestWriteErrorKillsJournal(t *testing.T) {
	for _, opts := range []Options{{}, {SyncInterval: time.Hour}, {NoSync: true}} {
		opts.Logger = testOptions(t).Logger
		h, f := newFaultHarness(t, opts)
		h.open()
		for range 10 {
			_, seq, err := h.q.put("default", 0, 0, "kept")
			require.NoError(t, err)
			require.NoError(t, h.wait(seq))
		}
		want := h.q.loggedCopy()
		f.set(func(f *faults) { f.writeErr = syscall.EIO })
		_, seq, err := h.q.put("default", 0, 0, "lost")
		require.NoError(t, err, "Append only buffers")
		err = h.wait(seq)
		require.Error(t, err, "never acknowledged")
		assert.ErrorIs(t, err, syscall.EIO)
		_, _, err = h.q.put("default", 0, 0, "refused")
		assert.ErrorIs(t, err, jobs.ErrJournal)
		_, err = h.q.del(h.q.ids()[0])
		assert.ErrorIs(t, err, jobs.ErrJournal)

		assert.ErrorIs(t, h.l.Close(), syscall.EIO, "Close reports the failure")
		f.set(func(f *faults) { f.writeErr = nil })
		h.open()
		requireRestored(t, want, h.q)
		h.close()
		h.l = nil
	}
}

func TestFullDiskWithoutReserveKillsJournal(t *testing.T) {
	h, f := newFaultHarness(t, testOptions(t))
	h.open()
	_, seq, err := h.q.put("default", 0, 0, "kept")
	require.NoError(t, err)
	require.NoError(t, h.wait(seq))
	want := h.q.loggedCopy()
	f.set(func(f *faults) { f.writeErr = syscall.ENOSPC })
	_, seq, _ = h.q.put("default", 0, 0, "lost")
	err = h.wait(seq)
	require.ErrorIs(t, err, syscall.ENOSPC, "even the reserve's room did not help")
	assert.NoFileExists(t, filepath.Join(h.dir, reserveName))
	_, _, err = h.q.put("default", 0, 0, "refused")
	assert.ErrorIs(t, err, jobs.ErrJournal)
	h.l.Close()
	f.set(func(f *faults) { f.writeErr = nil })
	h.open()
	requireRestored(t, want, h.q)
	assert.FileExists(t, filepath.Join(h.dir, reserveName), "the reserve is written again at Open")
}

func TestSyncErrorKillsJournal(t *testing.T) {
	h, f := newFaultHarness(t, testOptions(t))
	h.open()
	_, seq, err := h.q.put("default", 0, 0, "kept")
	require.NoError(t, err)
	require.NoError(t, h.wait(seq))
	f.set(func(f *faults) { f.syncErr = syscall.EIO })
	_, seq, _ = h.q.put("default", 0, 0, "not acknowledged")
	require.ErrorIs(t, h.wait(seq), syscall.EIO, "-f0 acknowledges only after fsync")
	_, _, err = h.q.put("default", 0, 0, "refused")
	assert.ErrorIs(t, err, jobs.ErrJournal)
}

func TestOpenOnFullDiskStartsInLowSpaceMode(t *testing.T) {
	dir := testDir(t)
	f := &faults{dir: dir, capacity: 1}
	h := &harness{t: t, dir: dir, opts: testOptions(t), hooks: f.hooks()}
	h.open()
	defer h.close()
	_, _, err := h.q.put("default", 0, 0, "x")
	assert.ErrorIs(t, err, jobs.ErrNoSpace)
}

// TestRealFullDisk fills a real, tiny tmpfs (root only).
func TestRealFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	opts := testOptions(t)
	opts.SegmentSize = 16 << 10 // reserve: 64 KiB
	h := &harness{t: t, dir: dir, opts: opts}
	h.open()
	defer func() {
		if h.l != nil {
			h.l.Close()
		}
	}()
	body := strings.Repeat("z", 1000)
	var acked []uint64
	refused := false
	for range 2000 {
		id, seq, err := h.q.put("default", 0, 0, body)
		if errors.Is(err, jobs.ErrNoSpace) {
			refused = true
			break
		}
		require.NoError(t, err)
		require.NoError(t, h.wait(seq))
		acked = append(acked, id)
	}
	require.True(t, refused, "the tmpfs filled up")
	for _, id := range acked[:len(acked)/2] {
		seq, err := h.q.del(id)
		require.NoError(t, err)
		require.NoError(t, h.wait(seq), "deletes are logged on a full disk")
	}
	h.restartRestores()
}

func TestTruncationFailureIsRetried(t *testing.T) {
	opts := testOptions(t)
	opts.NoSync = true
	h, f := newFaultHarness(t, opts)
	h.open()
	f.set(func(f *faults) { f.truncErr = syscall.EIO })
	churn := func() {
		for range 300 {
			id, _, err := h.q.put("default", 0, 0, strings.Repeat("c", 100))
			require.NoError(t, err)
			_, err = h.q.del(id)
			require.NoError(t, err)
		}
	}
	keep, _, err := h.q.put("default", 0, 0, "kept through it all")
	require.NoError(t, err)
	for f.truncCount() == 0 {
		churn()
	}
	c, err := h.l.Committed()
	require.NoError(t, err, "a failed truncation is not a journal failure")
	f.set(func(f *faults) { f.truncErr = nil })
	churn()
	h.settle()
	assert.Greater(t, h.l.Stats().OldestIndex, 1, "truncation succeeded later")
	assert.Greater(t, h.l.committed.Load(), c)
	want := h.q.loggedCopy()
	assert.Contains(t, want, keep)
	h.restart()
	requireRestored(t, want, h.q)
}

func (f *faults) truncCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.truncs
}

// TestWriteFailureIsLoggedOnce: a failed write that kills the journal is
// one error line (the journal's failure, with the cause), not two.
func TestWriteFailureIsLoggedOnce(t *testing.T) {
	var logs syncBuf
	opts := testOptions(t)
	opts.Logger = zerolog.New(&logs)
	h, f := newFaultHarness(t, opts)
	h.open()
	f.set(func(f *faults) { f.writeErr = syscall.EIO })
	_, seq, err := h.q.put("default", 0, 0, "lost")
	require.NoError(t, err)
	require.ErrorIs(t, h.wait(seq), syscall.EIO)
	assert.ErrorIs(t, h.l.Close(), syscall.EIO)
	h.l = nil
	var errs []string
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if strings.Contains(line, `"level":"error"`) {
			errs = append(errs, line)
		}
	}
	require.Len(t, errs, 1, "one report of one failure:\n%s", strings.Join(errs, "\n"))
	assert.Contains(t, errs[0], syscall.EIO.Error())
}
