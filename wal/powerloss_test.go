package wal

import (
	"errors"
	"fmt"
	"os"
	"strings"
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

// powerLossRun is what a runPowerLoss saw acknowledged before the crash.
type powerLossRun struct {
	acked   map[uint64]string // acknowledged puts: id -> body
	deleted map[uint64]bool   // acknowledged deletes (their puts were acknowledged first)
	// uncertain are deletes sent and not seen acknowledged: the crash may
	// have come after their fsync and before the producer saw it.
	uncertain map[uint64]bool
	dropped   int64 // bytes written and never fsynced, cut by the crash
	h         *harness
}

// runPowerLoss runs concurrent producers against a Log on a powerDisk,
// records every put and delete the Log acknowledged (Committed covered
// it), and cuts the power at a random point. Every 8th body is larger than
// gatherMin (the writer hands it to the kernel from the job's memory, one
// writev around it) and every 3rd acknowledged put is deleted again.
func runPowerLoss(t *testing.T, opts Options, producers int, before time.Duration) powerLossRun {
	h := newHarness(t, opts)
	disk := newPowerDisk(h.dir)
	disk.syncDelay = time.Millisecond
	h.hooks = disk.hooks()
	h.open()
	run := powerLossRun{acked: map[uint64]string{}, deleted: map[uint64]bool{}, uncertain: map[uint64]bool{}, h: h}
	var mu sync.Mutex
	var stop atomic.Bool
	var wg sync.WaitGroup
	// committed waits until seq is committed; false once it never will be
	// (the crash) or the test stops.
	committed := func(seq uint64) bool {
		h.l.Flush()
		for {
			c, err := h.l.Committed()
			if seq <= c {
				return true
			}
			if err != nil || stop.Load() {
				return false
			}
			time.Sleep(50 * time.Microsecond) // polling the commit, not driving time
		}
	}
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				body := fmt.Sprintf("p%d-%d", p, i)
				if i%8 == 7 {
					body += strings.Repeat("g", gatherMin+i%1000)
				}
				id, seq, err := h.q.put("default", 0, 0, body)
				if err != nil || !committed(seq) {
					return // the journal failed at the crash
				}
				mu.Lock()
				run.acked[id] = body
				mu.Unlock()
				if i%3 != 2 {
					continue
				}
				mu.Lock()
				run.uncertain[id] = true
				mu.Unlock()
				seq, err = h.q.del(id)
				if err != nil || !committed(seq) {
					return
				}
				mu.Lock()
				run.deleted[id] = true
				delete(run.uncertain, id)
				mu.Unlock()
			}
		}()
	}
	time.Sleep(before) // the crash point: let traffic run
	run.dropped = disk.crash(t)
	stop.Store(true)
	wg.Wait()
	h.l.Close() // fails: the power is gone
	h.l = nil
	h.hooks = hooks{}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d puts and %d deletes acknowledged, %d bytes never fsynced dropped", len(run.acked), len(run.deleted), run.dropped)
	return run
}

// TestPowerLossKeepsEveryAcknowledgedPutAtF0: with -f0 a put or delete is
// acknowledged only after the fsync that covers it, so a machine crash
// loses none (nor undoes a delete), whatever was written but not yet
// synced - large bodies written around the chunk included (small segments:
// full ones are retired and synced by the sync goroutine, and new segment
// files must be made durable in the directory too).
func TestPowerLossKeepsEveryAcknowledgedPutAtF0(t *testing.T) {
	var lost int64
	puts, deletes := 0, 0
	for round := range 4 {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			opts := testOptions(t)
			opts.SegmentSize = 2048
			run := runPowerLoss(t, opts, 4, time.Duration(20+round*30)*time.Millisecond)
			lost += run.dropped
			puts += len(run.acked)
			deletes += len(run.deleted)
			run.h.open()
			got := map[uint64]string{}
			for _, r := range run.h.q.restored {
				got[r.ID] = string(r.Body)
			}
			for id, body := range run.acked {
				if run.uncertain[id] {
					continue // its delete may or may not have been made durable
				}
				if run.deleted[id] {
					assert.NotContains(t, got, id, "acknowledged delete of %d undone", id)
					continue
				}
				require.Contains(t, got, id, "acknowledged put %d lost", id)
				assert.Equal(t, body, got[id])
			}
		})
	}
	assert.Positive(t, lost, "the crashes hit written, unsynced records (or this test proves nothing)")
	assert.Positive(t, puts, "puts were acknowledged before the crashes")
	assert.Positive(t, deletes, "deletes were acknowledged before the crashes")
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

// TestEmptySegmentAfterTornEndIsDropped: a crash can leave a new segment
// file's name durable while the end of the segment before it is not (the
// writers start a segment without waiting for the previous one's fsync).
// Open takes the gap before such empty files for the torn tail and deletes
// them; if the manifest names one of them as the last segment, the entries
// before it were fsynced and the gap is damage.
func TestEmptySegmentAfterTornEndIsDropped(t *testing.T) {
	for _, vouched := range []bool{false, true} {
		dir := testDir(t)
		buildLog(t, dir, 1024, 60)
		files := segmentFiles(t, dir)
		tail := files[len(files)-1]
		require.NoError(t, os.Truncate(tail.path, tail.size/2)) // its end never reached the disk
		empty := segmentPath(dir, tail.start+1000)
		require.NoError(t, os.WriteFile(empty, nil, 0o640)) // a newer segment's name did
		m, found, err := readManifest(dir)
		require.NoError(t, err)
		require.True(t, found)
		m.last, m.lastHolds = tail.start, tail.start-1
		if vouched {
			m.last, m.lastHolds = tail.start+1000, tail.start+999
		}
		require.NoError(t, writeManifest(dir, m))

		l, err := Open(dir, Options{SegmentSize: 1024})
		if vouched {
			require.ErrorIs(t, err, ErrCorrupt)
			assert.FileExists(t, empty, "damage is not repaired without salvage")
			continue
		}
		require.NoError(t, err, "a torn end followed by empty segment files is a torn tail")
		assert.NoFileExists(t, empty)
		require.NoError(t, l.Close())
		h := &harness{t: t, dir: dir, opts: Options{SegmentSize: 1024}}
		h.open()
		assert.NotEmpty(t, h.q.restored)
		id, seq, err := h.q.put("default", 0, 0, "after the repair")
		require.NoError(t, err)
		require.NoError(t, h.wait(seq))
		h.restart()
		assert.Contains(t, h.q.ids(), id)
		h.close()
	}
}

// TestPowerLossUnderTrafficLosesOnlyTheSyncInterval: -f MS with producers
// writing throughout. Each time the sync timer fires (MS passed), every
// put acknowledged before it is durable once that fsync completes, and the
// next write arms the timer again, writes made during the fsync included;
// a machine crash after several rounds loses none of the puts acknowledged
// before the last completed timer fsync.
func TestPowerLossUnderTrafficLosesOnlyTheSyncInterval(t *testing.T) {
	opts := testOptions(t)
	opts.SyncInterval = 50 * time.Millisecond
	// Several segments (retired ones are synced in the timer's round too),
	// not thousands: with producers this fast a smaller size makes the
	// sync goroutine's fsyncs, one per full segment, the bottleneck, and
	// -f MS bounds the loss only while the disk keeps up.
	opts.SegmentSize = 256 << 10
	h := newHarness(t, opts)
	disk := newPowerDisk(h.dir)
	ft := newFakeTimers()
	h.hooks = disk.hooks()
	h.hooks.newTimer = ft.newTimer
	h.open()

	var mu sync.Mutex
	acked := map[uint64]bool{}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for p := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				body := fmt.Sprintf("p%d-%d", p, i)
				if i%16 == 15 {
					body += strings.Repeat("g", gatherMin)
				}
				id, seq, err := h.q.put("default", 0, 0, body)
				if err != nil {
					return
				}
				h.l.Flush()
				for { // -f MS acknowledges once written (Flush may find another writer writing it)
					c, err := h.l.Committed()
					if c >= seq {
						break
					}
					if err != nil || stop.Load() {
						return
					}
					time.Sleep(50 * time.Microsecond) // polling the commit, not driving time
				}
				mu.Lock()
				acked[id] = true
				mu.Unlock()
			}
		}()
	}
	var safe []uint64 // acknowledged before the last timer fsync that completed
	for range 3 {
		recv(t, ft.armed, "the sync timer, armed by a write after the last fsync")
		mu.Lock()
		before := make([]uint64, 0, len(acked))
		for id := range acked {
			before = append(before, id)
		}
		mu.Unlock()
		h.l.mu.Lock()
		written := h.l.writtenIndex
		h.l.mu.Unlock()
		ft.fire()
		require.Eventually(t, func() bool {
			select {
			case <-ft.armed: // a forced fsync (the id lease) replaced the timer: MS passes for the new one
				ft.fire()
			default:
			}
			h.l.mu.Lock()
			defer h.l.mu.Unlock()
			return h.l.durableIndex >= written
		}, 30*time.Second, time.Millisecond, "the timer's fsync")
		safe = before
	}
	require.NotEmpty(t, safe)
	disk.crash(t)
	stop.Store(true)
	wg.Wait()
	h.l.Close() // fails: the power is gone
	h.l = nil
	h.hooks = hooks{}
	h.open()
	got := map[uint64]bool{}
	for _, r := range h.q.restored {
		got[r.ID] = true
	}
	for _, id := range safe {
		require.True(t, got[id], "put %d, acknowledged before the last completed timer fsync, lost", id)
	}
	mu.Lock()
	t.Logf("%d puts acknowledged, %d before the last timer fsync, %d restored", len(acked), len(safe), len(got))
	mu.Unlock()
}
