package wal

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"
)

// harness opens a Log in a temporary directory, replays it into a fresh
// fakeQueue, and restarts it on demand.
type harness struct {
	t      *testing.T
	dir    string
	opts   Options
	hooks  hooks
	l      *Log
	q      *fakeQueue
	commit chan struct{}
}

func testOptions(t testing.TB) Options {
	return Options{SegmentSize: 4096, Logger: zerolog.New(zerolog.NewTestWriter(t))}
}

// testDir is a fresh directory, memory-backed when /dev/shm is usable: the
// tests are about what the log writes, not about the disk's fsync latency
// (which on a shared CI box varies from 1 ms to half a second).
func testDir(t testing.TB) string {
	if info, err := os.Stat("/dev/shm"); err == nil && info.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "stalkd-wal-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

func newHarness(t *testing.T, opts Options) *harness {
	h := &harness{t: t, dir: testDir(t), opts: opts}
	t.Cleanup(func() {
		if h.l != nil {
			h.l.Close()
		}
	})
	return h
}

// open opens and replays the log; it fails the test on error.
func (h *harness) open() {
	h.t.Helper()
	require.NoError(h.t, h.tryOpen())
}

func (h *harness) tryOpen() error {
	l, err := openLog(h.dir, h.opts, h.hooks)
	if err != nil {
		return err
	}
	q := newFakeQueue(l)
	if err := l.replay(q); err != nil {
		l.Close()
		return err
	}
	h.commit = make(chan struct{}, 1)
	l.Subscribe(func() { signal(h.commit) })
	h.l, h.q = l, q
	return nil
}

func (h *harness) close() {
	h.t.Helper()
	require.NoError(h.t, h.l.Close())
	h.l = nil
}

func (h *harness) restart() {
	h.t.Helper()
	h.close()
	h.open()
}

// restartRestores restarts the log and requires that replay restores every
// job the queue had logged, as it was logged.
func (h *harness) restartRestores() {
	h.t.Helper()
	want := h.q.loggedCopy()
	h.restart()
	requireRestored(h.t, want, h.q)
}

// wait blocks until seq is committed and returns the journal's error if it
// never will be.
func (h *harness) wait(seq uint64) error {
	h.t.Helper()
	h.l.Flush() // as every waiter does (jobs.Flusher)
	deadline := time.After(30 * time.Second)
	for {
		c, err := h.l.Committed()
		if seq <= c {
			return nil
		}
		if err != nil {
			return err
		}
		select {
		case <-h.commit:
		case <-deadline:
			h.t.Fatalf("seq %d not committed after 30s (committed %d)", seq, c)
		}
	}
}

// settle waits until the compactor has nothing left to do.
func (h *harness) settle() {
	h.t.Helper()
	settle(h.t, h.l)
}

func settle(t *testing.T, l *Log) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		l.mu.Lock()
		// Taken by a writer is not written yet: until writtenIndex
		// catches up, segs (and so compactNeeded) lag behind the files.
		busy := l.pending.n > 0 || l.writtenIndex+1 < l.nextIndex || l.compactNeeded() || l.truncWant > l.truncDone
		l.mu.Unlock()
		if !busy {
			return
		}
		l.Flush()
		signal(l.compactWake)
		signal(l.wake)
		time.Sleep(time.Millisecond) // waiting for goroutines, not driving time
	}
	t.Fatal("compaction did not settle")
}

// logBytes is the size of every segment file.
func logBytes(t testing.TB, dir string) int64 {
	files, _, err := listSegments(dir)
	require.NoError(t, err)
	var n int64
	for _, f := range files {
		n += f.size
	}
	return n
}

func segmentFiles(t testing.TB, dir string) []segFile {
	files, _, err := listSegments(dir)
	require.NoError(t, err)
	return files
}

func readFile(t testing.TB, path string) []byte {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func lastSegment(t testing.TB, dir string) string {
	files := segmentFiles(t, dir)
	require.NotEmpty(t, files)
	return filepath.Join(dir, filepath.Base(files[len(files)-1].path))
}
