package wal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// crashedCopy puts n jobs through a log with opts (every one acknowledged),
// then copies the directory while the log is still open: the state a
// machine crash leaves when everything written had reached the disk. It
// returns the copy and the highest id handed out.
func crashedCopy(t *testing.T, opts Options, n int) (dir string, top uint64) {
	h := newHarness(t, opts)
	h.open()
	for i := range n {
		id, seq, err := h.q.put("default", 1, 0, "a job body that takes some room in a segment")
		require.NoError(t, err)
		require.NoError(t, h.wait(seq))
		require.Greater(t, id, top, "put %d", i)
		top = id
	}
	// The sync goroutine records each new last segment in the manifest
	// once the one before it is fsynced, a moment after the writer moved
	// on: crash once it has caught up.
	require.Eventually(t, func() bool {
		signal(h.l.wake)
		h.l.mu.Lock()
		tail := h.l.segs.tail().start
		h.l.mu.Unlock()
		h.l.manMu.Lock()
		defer h.l.manMu.Unlock()
		return h.l.man.last == tail
	}, 30*time.Second, time.Millisecond)
	dir = testDir(t)
	copyDir(t, h.dir, dir) // no Close: the crash
	return dir, top
}

// reopenAndPut opens dir with Salvage and returns the id of a new put.
func reopenAndPut(t *testing.T, dir string, opts Options) uint64 {
	opts.Salvage = true
	h := &harness{t: t, dir: dir, opts: opts}
	h.open()
	defer h.close()
	id, seq, err := h.q.put("default", 1, 0, "after the crash")
	require.NoError(t, err)
	require.NoError(t, h.wait(seq))
	return id
}

// TestIDsNeverRepeatAfterLostTail loses the end of the last segment (what
// -F or -f MS leave unsynced when the machine crashes): the highest ids
// were only in that tail, and must not be handed out again.
func TestIDsNeverRepeatAfterLostTail(t *testing.T) {
	for _, opts := range []Options{{NoSync: true}, {SyncInterval: DefaultSyncInterval}, {}} {
		opts.SegmentSize = 1024
		opts.Logger = zerolog.New(zerolog.NewTestWriter(t))
		dir, top := crashedCopy(t, opts, 60)
		last := lastSegment(t, dir)
		offs := entryOffsets(t, readFile(t, last))
		keep := 0
		if len(offs) > 2 {
			keep = offs[1] // keep only its first entry
		}
		require.NoError(t, os.Truncate(last, int64(keep)))
		id := reopenAndPut(t, dir, opts)
		assert.Greater(t, id, top, "NoSync %v, SyncInterval %v: ids never repeat", opts.NoSync, opts.SyncInterval)
	}
}

// TestIDsNeverRepeatAfterSalvagedCut loses whole segments at the end (a
// deleted or emptied last segment, salvaged with the option): ids continue
// above every id handed out, not above the newest record left.
func TestIDsNeverRepeatAfterSalvagedCut(t *testing.T) {
	for _, cut := range []string{"deleted", "emptied", "cut mid-entry"} {
		opts := Options{SegmentSize: 1024, NoSync: true, Logger: zerolog.New(zerolog.NewTestWriter(t))}
		dir, top := crashedCopy(t, opts, 60)
		files := segmentFiles(t, dir)
		require.Greater(t, len(files), 3)
		switch cut {
		case "deleted":
			require.NoError(t, os.Remove(files[len(files)-1].path))
			require.NoError(t, os.Remove(files[len(files)-2].path))
		case "emptied":
			require.NoError(t, os.Truncate(files[len(files)-1].path, 0))
		default:
			require.NoError(t, os.Truncate(files[len(files)-1].path, 3))
		}
		if cut == "deleted" {
			_, err := Open(dir, Options{SegmentSize: 1024})
			require.ErrorIs(t, err, ErrCorrupt, "refused without salvage")
		}
		id := reopenAndPut(t, dir, opts)
		assert.Greater(t, id, top, "%s: ids never repeat", cut)
	}
}

// TestCleanCloseGivesBackTheLease: restarts after a clean Close burn no
// ids; a crash skips at most to the end of the lease.
func TestCleanCloseGivesBackTheLease(t *testing.T) {
	h := newHarness(t, testOptions(t))
	h.open()
	var top uint64
	for range 3 {
		for range 10 {
			id, _, err := h.q.put("default", 1, 0, "x")
			require.NoError(t, err)
			top = id
		}
		h.restart()
		id, _, err := h.q.put("default", 1, 0, "x")
		require.NoError(t, err)
		require.Equal(t, top+1, id, "a clean restart continues at the next id")
		top = id
	}
	m, found, err := readManifest(h.dir)
	require.NoError(t, err)
	require.True(t, found)
	assert.GreaterOrEqual(t, m.idLease, top, "the manifest covers every id handed out")

	dir := testDir(t)
	copyDir(t, h.dir, dir) // a crash
	h2 := &harness{t: t, dir: dir, opts: testOptions(t)}
	h2.open()
	id, _, err := h2.q.put("default", 1, 0, "x")
	require.NoError(t, err)
	assert.Greater(t, id, top)
	assert.LessOrEqual(t, id, top+minLeaseBlock+1, "a crash burns at most what was leased")
	h2.close()
}

func TestManifestOfAnOlderVersionIsUpgraded(t *testing.T) {
	dir := testDir(t)
	buildLog(t, dir, 1024, 30)
	m, found, err := readManifest(dir)
	require.NoError(t, err)
	require.True(t, found)
	v1 := []byte("stalkd-wal-manifest 1\nlast " + uitoa(m.last) + "\nlast_holds " + uitoa(m.lastHolds) + "\n")
	v1 = append(v1, "crc32c "+hex32(string(v1))+"\n"...)
	require.NoError(t, os.WriteFile(filepath.Join(dir, manifestName), v1, 0o640))
	h := &harness{t: t, dir: dir, opts: Options{SegmentSize: 1024}}
	h.open()
	h.close()
	data := readFile(t, filepath.Join(dir, manifestName))
	assert.Contains(t, string(data), manifestVersion+"\n")
	assert.Contains(t, string(data), "\nid_lease ")
}

func uitoa(v uint64) string { return strconv.FormatUint(v, 10) }

// fakePersist records lease ends as the manifest would; fail makes it
// refuse.
type fakePersist struct {
	mu      sync.Mutex
	durable atomic.Uint64 // the highest end recorded
	calls   int
	fail    error
}

func (p *fakePersist) persist(end uint64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	if p.fail != nil {
		return p.fail
	}
	runtime.Gosched() // let others run into the limit meanwhile
	if end > p.durable.Load() {
		p.durable.Store(end)
	}
	return nil
}

// steppingClock advances by step at every reading.
func steppingClock(step time.Duration) func() time.Time {
	var mu sync.Mutex
	t := time.Unix(1_000_000, 0)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(step)
		return t
	}
}

// within runs fn and fails the test if it has not returned after a
// generous bound (nothing here may block for good).
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s: still blocked after a minute", what)
	}
}

func TestLeaseBlockAdaptsToThePutRate(t *testing.T) {
	var p fakePersist
	p.durable.Store(minLeaseBlock)
	var mu sync.Mutex
	var sizes []uint64
	now := time.Unix(1_000_000, 0)
	var step time.Duration // how long each block lasts: the clock moves by it at each extension
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	ls := newIDLease(1, minLeaseBlock, clock, p.persist, func(err error) bool { t.Error(err); return false })
	ls.grown = func(end, size uint64) { mu.Lock(); sizes = append(sizes, size); now = now.Add(step); mu.Unlock() }
	phase := func(d time.Duration, ids int) []uint64 {
		mu.Lock()
		step, now = d, now.Add(d)
		from := len(sizes)
		mu.Unlock()
		within(t, fmt.Sprintf("blocks lasting %v", d), func() {
			for range ids {
				if id := ls.nextID(); id > p.durable.Load() {
					t.Errorf("id %d handed out above the recorded lease %d", id, p.durable.Load())
					return
				}
			}
		})
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(sizes[from:])
	}

	// Blocks used up in 0.9 s, a rate that fits in the next block: they double.
	grow := phase(900*time.Millisecond, 4*maxLeaseBlock)
	require.NotEmpty(t, grow)
	for i, s := range grow {
		assert.Equal(t, min(uint64(minLeaseBlock)<<(i+1), maxLeaseBlock), s, "extension %d doubles up to the largest block", i)
	}
	// Blocks lasting two minutes: they halve, down to the smallest.
	shrink := phase(2*leaseSlow, 2*maxLeaseBlock)
	require.NotEmpty(t, shrink)
	assert.Equal(t, uint64(maxLeaseBlock/2), shrink[0], "a block that lasted long halves the next")
	assert.Equal(t, uint64(minLeaseBlock), shrink[len(shrink)-1])
	// A burst (blocks used up in a millisecond): the next block is sized
	// by the rate, not doubled ten times.
	burst := phase(time.Millisecond, 2*maxLeaseBlock)
	// (burst[0] ends the last slow block.)
	require.Greater(t, len(burst), 2)
	assert.GreaterOrEqual(t, burst[1], uint64(maxLeaseBlock/4), "the first block used up in the burst sizes the next by its rate")
	assert.Equal(t, uint64(maxLeaseBlock), burst[2])
	assert.Less(t, len(burst), 6, "2M ids in a burst cost few fsyncs")
	assert.Equal(t, uint64(8*maxLeaseBlock), ls.close())
}

func TestLeaseNeverHandsOutAnUnrecordedID(t *testing.T) {
	var p fakePersist
	ls := newIDLease(1, 0, steppingClock(time.Millisecond), p.persist, func(err error) bool { t.Error(err); return false })
	const workers, each = 8, 20000
	var seen sync.Map
	var wg sync.WaitGroup
	within(t, "concurrent ids", func() {
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					id := ls.nextID()
					if d := p.durable.Load(); id > d {
						t.Errorf("id %d handed out above the recorded lease %d", id, d)
						return
					}
					if _, dup := seen.LoadOrStore(id, true); dup {
						t.Errorf("id %d handed out twice", id)
						return
					}
				}
			}()
		}
		wg.Wait()
	})
	assert.Equal(t, uint64(workers*each), ls.close())
}

func TestLeaseExtendsInTheBackgroundAtHalfABlock(t *testing.T) {
	var p fakePersist
	ext := make(chan uint64, 8)
	ls := newIDLease(1, minLeaseBlock, steppingClock(time.Hour), p.persist, func(err error) bool { t.Error(err); return false })
	p.durable.Store(minLeaseBlock)
	ls.grown = func(end, size uint64) { ext <- end }
	for range minLeaseBlock/2 + 1 {
		ls.nextID() // the last one is half way through the block
	}
	select {
	case end := <-ext:
		assert.Greater(t, end, uint64(minLeaseBlock), "extended before the block ran out")
	case <-time.After(time.Minute):
		t.Fatal("no extension in the background after half a block")
	}
	p.mu.Lock()
	calls := p.calls
	p.mu.Unlock()
	assert.Equal(t, 1, calls)
	within(t, "close", func() { ls.close() })
}

func TestLeaseFailureNeverBlocks(t *testing.T) {
	p := fakePersist{fail: errors.New("disk gone")}
	var failures atomic.Int32
	ls := newIDLease(1, 10, steppingClock(time.Hour), p.persist, func(error) bool { failures.Add(1); return false })
	within(t, "ids after a failed extension", func() {
		prev := uint64(0)
		for range 100 {
			id := ls.nextID()
			require.Greater(t, id, prev)
			prev = id
		}
		ls.close()
	})
	assert.Equal(t, int32(1), failures.Load(), "reported once; the journal dies with it")
}

func TestLeaseFailureKillsTheJournal(t *testing.T) {
	h := newHarness(t, testOptions(t))
	h.open()
	require.NoError(t, os.Chmod(h.dir, 0o500)) // the manifest cannot be replaced
	t.Cleanup(func() { os.Chmod(h.dir, 0o700) })
	if os.Geteuid() == 0 {
		// root ignores the mode: make the manifest's temporary name a directory instead
		require.NoError(t, os.Chmod(h.dir, 0o700))
		require.NoError(t, os.Mkdir(filepath.Join(h.dir, manifestName+".tmp"), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(h.dir, manifestName+".tmp", "x"), nil, 0o600))
	}
	var err error
	within(t, "puts past the lease", func() {
		for range 2 * minLeaseBlock {
			if _, _, err = h.q.put("default", 1, 0, "x"); err != nil {
				return
			}
		}
	})
	require.ErrorIs(t, err, jobs.ErrJournal, "no record names an id the lease does not cover")
	cerr := h.wait(1 << 62) // returns the journal's failure (a failed background extension reports it last)
	assert.ErrorContains(t, cerr, "id lease")
	h.l.Close()
	h.l = nil
}

func TestLeaseFsyncsOncePerBlockWhateverThePolicy(t *testing.T) {
	for _, opts := range []Options{{NoSync: true}, {SyncInterval: time.Hour}} {
		opts.SegmentSize = 1 << 20
		h := newHarness(t, opts)
		h.open()
		var top uint64
		for range 3 * minLeaseBlock {
			id, _, err := h.q.put("default", 1, 0, "x")
			require.NoError(t, err)
			top = id
		}
		m, _, err := readManifest(h.dir)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, m.idLease, top, "NoSync %v: the lease on disk covers every id handed out", opts.NoSync)
		h.close()
	}
}

// TestFullDiskWhileLeasingRefusesPutsThenRecovers: a lease that cannot be
// recorded for lack of space refuses puts (OUT_OF_MEMORY), keeps the
// journal alive, and is retried a second later (by the injected clock);
// ids then continue above every id handed out meanwhile.
func TestFullDiskWhileLeasingRefusesPutsThenRecovers(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1_000_000, 0)
	full := false
	h := newHarness(t, testOptions(t))
	h.hooks.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	h.hooks.writeManifest = func(dir string, m manifest) error {
		mu.Lock()
		f := full
		mu.Unlock()
		if f {
			return syscall.ENOSPC
		}
		return writeManifest(dir, m)
	}
	h.open()
	mu.Lock()
	full = true
	mu.Unlock()
	var top uint64
	var err error
	within(t, "puts until the lease runs out", func() {
		for range 4 * minLeaseBlock {
			var id uint64
			if id, _, err = h.q.put("default", 1, 0, "x"); err != nil {
				top = id
				return
			}
		}
	})
	require.ErrorIs(t, err, jobs.ErrNoSpace, "a put past the recorded lease is refused")
	for range 10 {
		id, _, err := h.q.put("default", 1, 0, "x")
		assert.ErrorIs(t, err, jobs.ErrNoSpace, "and so is every put until a lease is recorded")
		top = max(top, id)
	}
	_, cerr := h.l.Committed()
	require.NoError(t, cerr, "the journal lives")

	mu.Lock()
	full = false
	mu.Unlock()
	_, _, err = h.q.put("default", 1, 0, "x")
	assert.ErrorIs(t, err, jobs.ErrNoSpace, "no retry before a second has passed")
	mu.Lock()
	now = now.Add(leaseRetry)
	mu.Unlock()
	id, seq, err := h.q.put("default", 1, 0, "x")
	require.NoError(t, err, "the retry records a lease: puts are accepted again")
	require.NoError(t, h.wait(seq))
	assert.Greater(t, id, top)
	m, _, err := readManifest(h.dir)
	require.NoError(t, err)
	assert.Greater(t, m.idLease, top, "the new lease covers the ids handed out while the disk was full")
}

// TestDamagedManifestUnderSalvageSkipsIDs: the lease is lost with a
// damaged manifest; salvage continues a whole largest block of ids (twice)
// above the records rather than right after them.
func TestDamagedManifestUnderSalvageSkipsIDs(t *testing.T) {
	dir, top := crashedCopy(t, Options{SegmentSize: 1024, NoSync: true}, 30)
	path := filepath.Join(dir, manifestName)
	data := readFile(t, path)
	data[len(data)-3] ^= 1 // the checksum
	require.NoError(t, os.WriteFile(path, data, 0o640))
	var logs syncBuf
	id := reopenAndPut(t, dir, Options{SegmentSize: 1024, NoSync: true, Logger: zerolog.New(&logs)})
	assert.Greater(t, id, top+2*maxLeaseBlock)
	assert.Contains(t, logs.String(), "ids skip ahead")
}
