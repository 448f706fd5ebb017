package wal

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// powerDisk simulates losing power under a real directory: it follows every
// segment file the log writes and fsyncs, and crash cuts each file back to
// what its last completed fsync covered, and deletes the files whose
// creation no directory fsync made durable. From the crash on, every write,
// fsync and manifest update fails, so the Log acknowledges nothing more.
type powerDisk struct {
	mu      sync.Mutex
	dir     string
	files   map[string]*powerFile // by path
	created map[string]bool       // created, and no directory fsync since
	down    bool
	// syncDelay is how long an fsync takes (a memory-backed test directory
	// syncs at once: the writers would seldom get ahead of it).
	syncDelay time.Duration
}

var errPowerLost = errors.New("power lost")

func newPowerDisk(dir string) *powerDisk {
	return &powerDisk{dir: dir, files: map[string]*powerFile{}, created: map[string]bool{}}
}

func (d *powerDisk) hooks() hooks {
	return hooks{
		openSegment: func(path string, create bool) (appendFile, error) {
			d.mu.Lock()
			defer d.mu.Unlock()
			if d.down {
				return nil, errPowerLost
			}
			f, err := openSegment(path, create)
			if err != nil {
				return nil, err
			}
			pf := &powerFile{appendFile: f, d: d, path: path}
			if create {
				d.created[path] = true
			} else if info, err := os.Stat(path); err == nil {
				pf.size, pf.synced = info.Size(), info.Size() // it survived the last life
			}
			d.files[path] = pf
			return pf, nil
		},
		syncDir: func(dir string) error {
			d.mu.Lock()
			if d.down {
				d.mu.Unlock()
				return errPowerLost
			}
			created := make([]string, 0, len(d.created))
			for p := range d.created {
				created = append(created, p)
			}
			d.mu.Unlock()
			if err := syncDir(dir); err != nil {
				return err
			}
			d.mu.Lock()
			defer d.mu.Unlock()
			if d.down {
				return errPowerLost
			}
			for _, p := range created {
				delete(d.created, p)
			}
			return nil
		},
		writeManifest: func(dir string, m manifest) error {
			d.mu.Lock()
			defer d.mu.Unlock() // held: a manifest is all or nothing across the crash
			if d.down {
				return errPowerLost
			}
			return writeManifest(dir, m)
		},
	}
}

// crash loses power: every file is cut to its fsynced size, files not made
// durable by a directory fsync disappear. It returns the bytes dropped.
func (d *powerDisk) crash(t *testing.T) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.down = true
	var dropped int64
	for path, f := range d.files {
		if d.created[path] {
			dropped += f.size
			require.NoError(t, os.Remove(path))
			continue
		}
		if info, err := os.Stat(path); err == nil && info.Size() > f.synced {
			dropped += info.Size() - f.synced
			require.NoError(t, os.Truncate(path, f.synced))
		}
	}
	return dropped
}

// powerFile is a segment file on the powerDisk.
type powerFile struct {
	appendFile
	d            *powerDisk
	path         string
	size, synced int64 // guarded by d.mu
}

func (f *powerFile) Writev(bufs [][]byte) (int, error) {
	f.d.mu.Lock()
	defer f.d.mu.Unlock()
	if f.d.down {
		return 0, &os.PathError{Op: "write", Path: f.path, Err: syscall.EIO}
	}
	n, err := f.appendFile.Writev(bufs)
	f.size += int64(n)
	return n, err
}

func (f *powerFile) Truncate(size int64) error {
	f.d.mu.Lock()
	defer f.d.mu.Unlock()
	if f.d.down {
		return errPowerLost
	}
	err := f.appendFile.Truncate(size)
	if err == nil {
		f.size, f.synced = size, min(f.synced, size)
	}
	return err
}

// Sync covers what was written when it began, and counts only if it
// completed before the crash (a sync the crash interrupted fails, so the Log
// acknowledges nothing on its account).
func (f *powerFile) Sync() error {
	f.d.mu.Lock()
	if f.d.down {
		f.d.mu.Unlock()
		return errPowerLost
	}
	size, delay := f.size, f.d.syncDelay
	f.d.mu.Unlock()
	time.Sleep(delay) // the disk's latency, not driving time
	if err := f.appendFile.Sync(); err != nil {
		return err
	}
	f.d.mu.Lock()
	defer f.d.mu.Unlock()
	if f.d.down {
		return errPowerLost
	}
	f.synced = max(f.synced, size)
	return nil
}

// runPowerLoss runs concurrent producers against a Log on a powerDisk,
// records every put the Log acknowledged (Committed covered it), and cuts
// the power at a random point.
func runPowerLoss(t *testing.T, opts Options, producers int, before time.Duration) (acked map[uint64]string, dropped int64, h *harness) {
	h = newHarness(t, opts)
	disk := newPowerDisk(h.dir)
	disk.syncDelay = time.Millisecond
	h.hooks = disk.hooks()
	h.open()
	acked = map[uint64]string{}
	var mu sync.Mutex
	var stop atomic.Bool
	var wg sync.WaitGroup
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				body := fmt.Sprintf("p%d-%d", p, i)
				id, seq, err := h.q.put("default", 0, 0, body)
				if err != nil {
					return // the journal failed at the crash
				}
				h.l.Flush()
				for {
					c, err := h.l.Committed()
					if seq <= c {
						mu.Lock()
						acked[id] = body
						mu.Unlock()
						break
					}
					if err != nil || stop.Load() {
						return
					}
					time.Sleep(50 * time.Microsecond) // polling the commit, not driving time
				}
			}
		}()
	}
	time.Sleep(before) // the crash point: let traffic run
	dropped = disk.crash(t)
	stop.Store(true)
	wg.Wait()
	h.l.Close() // fails: the power is gone
	h.l = nil
	h.hooks = hooks{}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d puts acknowledged, %d bytes never fsynced dropped", len(acked), dropped)
	return acked, dropped, h
}

// TestPowerLossKeepsEveryAcknowledgedPutAtF0: with -f0 a put is
// acknowledged only after the fsync that covers it, so a machine crash
// loses none, whatever was written but not yet synced (small segments:
// full ones are retired and synced by the sync goroutine, and new segment
// files must be made durable in the directory too).
func TestPowerLossKeepsEveryAcknowledgedPutAtF0(t *testing.T) {
	var lost int64
	for round := range 4 {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			opts := testOptions(t)
			opts.SegmentSize = 2048
			acked, dropped, h := runPowerLoss(t, opts, 4, time.Duration(20+round*30)*time.Millisecond)
			lost += dropped
			require.NotEmpty(t, acked)
			h.open()
			got := map[uint64]string{}
			for _, r := range h.q.restored {
				got[r.ID] = string(r.Body)
			}
			for id, body := range acked {
				require.Contains(t, got, id, "acknowledged put %d lost", id)
				assert.Equal(t, body, got[id])
			}
		})
	}
	assert.Positive(t, lost, "the crashes hit written, unsynced records (or this test proves nothing)")
}

// TestPowerLossLosesOnlyTheSyncInterval: with -f MS a put is acknowledged
// once written, and the sync timer, armed by the first write after an
// fsync, fsyncs within MS. What was acknowledged before the timer fired
// survives a machine crash; what came after may not.
func TestPowerLossLosesOnlyTheSyncInterval(t *testing.T) {
	opts := testOptions(t)
	opts.SyncInterval = 50 * time.Millisecond
	opts.SegmentSize = 1 << 20 // one segment: no full segment is synced early
	h := newHarness(t, opts)
	disk := newPowerDisk(h.dir)
	ft := newFakeTimers()
	h.hooks = disk.hooks()
	h.hooks.newTimer = ft.newTimer
	h.open()

	var before []uint64
	for i := range 40 {
		id, seq, err := h.q.put("default", 0, 0, fmt.Sprint("before-", i))
		require.NoError(t, err)
		require.NoError(t, h.wait(seq), "acknowledged once written")
		before = append(before, id)
	}
	recv(t, ft.armed, "the sync timer")
	ft.fire() // MS passed
	require.Eventually(t, func() bool {
		h.l.mu.Lock()
		defer h.l.mu.Unlock()
		return h.l.durableIndex >= h.l.writtenIndex
	}, 30*time.Second, time.Millisecond, "the timer's fsync")
	var after []uint64
	for i := range 10 {
		id, seq, err := h.q.put("default", 0, 0, fmt.Sprint("after-", i))
		require.NoError(t, err)
		require.NoError(t, h.wait(seq))
		after = append(after, id)
	}
	assert.Positive(t, disk.crash(t), "the puts after the fsync were written, not synced")
	h.l.Close()
	h.l = nil
	h.hooks = hooks{}
	h.open()
	got := map[uint64]bool{}
	for _, r := range h.q.restored {
		got[r.ID] = true
	}
	for _, id := range before {
		require.True(t, got[id], "put %d, acknowledged before the sync timer fired, lost", id)
	}
	for _, id := range after {
		assert.False(t, got[id], "put %d was never fsynced: the simulated crash drops it", id)
	}
}
