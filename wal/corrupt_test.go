package wal

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// syncBuf is a log sink tests can read.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// buildLog writes n or more jobs (job i has id i+1 and body "job number i"; each acknowledged before the next, so -f0 puts a
// meta with a durable mark between them), buries every third, deletes
// every fifth, and closes the log. It returns the logged state.
func buildLog(t *testing.T, dir string, segSize int64, n int) map[uint64]jobs.Record {
	h := &harness{t: t, dir: dir, opts: Options{SegmentSize: segSize, Logger: zerolog.New(zerolog.NewTestWriter(t))}}
	h.open()
	tailBytes := func() int64 {
		h.l.mu.Lock()
		defer h.l.mu.Unlock()
		return h.l.segs.tail().bytes
	}
	// n jobs, then more until the last segment holds a few entries and
	// room for the final meta.
	for i := 0; i < n || tailBytes() < segSize/3 || tailBytes() > segSize-100; i++ {
		id, seq, err := h.q.put("default", uint32(i), 0, fmt.Sprintf("job number %d", i))
		require.NoError(t, err)
		if i%3 == 0 {
			seq, err = h.q.bury(id, 7)
			require.NoError(t, err)
		}
		if i%5 == 0 {
			seq, err = h.q.del(id)
			require.NoError(t, err)
		}
		require.NoError(t, h.wait(seq))
	}
	want := h.q.loggedCopy()
	h.close()
	return want
}

func copyDir(t *testing.T, src, dst string) {
	ents, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range ents {
		if e.IsDir() || e.Name() == "lock" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue // renamed away since the listing (manifest.tmp): as a crash then would find it
		}
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, e.Name()), data, 0o640))
	}
}

// entryOffsets returns the start offset of every entry in a segment file,
// and its end.
func entryOffsets(t *testing.T, data []byte) []int {
	var offs []int
	off := 0
	for off < len(data) {
		offs = append(offs, off)
		_, n, err := frame(data[off:])
		require.NoError(t, err)
		off += n
	}
	return append(offs, off)
}

// expectUpTo replays, independently of the package's scanner, every complete
// entry of the log in dir, stopping at byte cut of the file named cutFile.
func expectUpTo(t *testing.T, dir, cutFile string, cut int) map[uint64]jobs.Record {
	want := map[uint64]jobs.Record{}
	for _, f := range segmentFiles(t, dir) {
		data := readFile(t, f.path)
		if filepath.Base(f.path) == cutFile {
			data = data[:cut]
		}
		for len(data) > 0 {
			ent, n, err := frame(data)
			if err != nil {
				break
			}
			data = data[n:]
			rec, err := DecodeRecord(ent)
			if err == ErrMetaRecord {
				continue
			}
			if err != nil {
				break
			}
			switch rec.Kind {
			case jobs.RecPut:
				want[rec.ID] = rec
			case jobs.RecUpdate:
				if w, ok := want[rec.ID]; ok {
					applyUpdate(&w, &rec)
					want[rec.ID] = w
				}
			case jobs.RecDelete:
				delete(want, rec.ID)
			}
		}
	}
	return want
}

func TestTornTailAtEveryOffset(t *testing.T) {
	src := testDir(t)
	buildLog(t, src, 4096, 40)
	last := filepath.Base(lastSegment(t, src))
	offs := entryOffsets(t, readFile(t, filepath.Join(src, last)))
	require.Greater(t, len(offs), 8)
	from := offs[len(offs)-8] // the last 7 entries (records, metas, the final meta)
	end := offs[len(offs)-1]
	for cut := from; cut < end; cut++ {
		dir := testDir(t)
		copyDir(t, src, dir)
		require.NoError(t, os.Truncate(filepath.Join(dir, last), int64(cut)))
		want := expectUpTo(t, dir, last, cut)

		var logs syncBuf
		h := &harness{t: t, dir: dir, opts: Options{SegmentSize: 4096, NoSync: true, Logger: zerolog.New(&logs)}}
		h.open()
		requireRestored(t, want, h.q)
		boundary := false
		for _, o := range offs {
			boundary = boundary || o == cut
		}
		if boundary {
			assert.NotContains(t, logs.String(), "torn tail", "cut %d is an entry boundary", cut)
		} else {
			assert.Contains(t, logs.String(), "torn tail repaired", "cut %d", cut)
			assert.Contains(t, logs.String(), last)
		}
		if cut%5 != 0 {
			h.close()
			continue
		}
		// The repaired log takes new records and reopens cleanly.
		id, seq, err := h.q.put("default", 1, 0, "after repair")
		require.NoError(t, err)
		require.NoError(t, h.wait(seq))
		want = h.q.loggedCopy()
		h.restart()
		requireRestored(t, want, h.q)
		assert.Contains(t, want, id)
		h.close()
	}
}

func TestZeroFilledTailIsTorn(t *testing.T) {
	dir := testDir(t)
	want := buildLog(t, dir, 4096, 20)
	f, err := os.OpenFile(lastSegment(t, dir), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write(make([]byte, 4096))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	var logs syncBuf
	h := &harness{t: t, dir: dir, opts: Options{SegmentSize: 4096, Logger: zerolog.New(&logs)}}
	h.open()
	requireRestored(t, want, h.q)
	assert.Contains(t, logs.String(), "torn tail repaired")
	h.close()
}

// damage opens dir after fn damaged it: without salvage Open must refuse
// with an error naming the file (and offset when given); with salvage it
// starts, and every job it restores is one that was put, intact.
func checkDamage(t *testing.T, fn func(dir string) (file string, offset int)) {
	dir := testDir(t)
	want := buildLog(t, dir, 1024, 120)
	require.Greater(t, len(segmentFiles(t, dir)), 4)
	file, offset := fn(dir)

	_, err := Open(dir, Options{SegmentSize: 1024})
	require.ErrorIs(t, err, ErrCorrupt)
	assert.Contains(t, err.Error(), file)
	if offset >= 0 {
		assert.Contains(t, err.Error(), fmt.Sprintf("offset %d ", offset))
	}
	_, err = Open(dir, Options{SegmentSize: 1024})
	require.ErrorIs(t, err, ErrCorrupt, "refused again: nothing was changed")

	var logs syncBuf
	h := &harness{t: t, dir: dir, opts: Options{SegmentSize: 1024, Salvage: true, Logger: zerolog.New(&logs)}}
	h.open()
	assert.Contains(t, logs.String(), "salvag")
	assert.NotEmpty(t, h.q.restored)
	for _, r := range h.q.restored {
		assert.Equal(t, fmt.Sprintf("job number %d", r.ID-1), string(r.Body), "job %d", r.ID)
	}
	lost := 0
	for id := range want {
		found := false
		for _, r := range h.q.restored {
			found = found || r.ID == id
		}
		if !found {
			lost++
		}
	}
	assert.Less(t, lost, len(want)/2, "salvage keeps what is readable")
	aside, err := filepath.Glob(filepath.Join(dir, "salvage-*"))
	require.NoError(t, err)
	assert.Len(t, aside, 1, "damaged files kept aside")

	// The salvaged log is healthy: a plain restart brings the same jobs.
	got := h.q.loggedCopy()
	h.opts.Salvage = false
	h.restart()
	requireRestored(t, got, h.q)
	h.close()
}

// flipInEntry flips a bit in the payload of entry i of file f and returns
// the entry's offset.
func flipInEntry(t *testing.T, path string, i int) int {
	data := readFile(t, path)
	offs := entryOffsets(t, data)
	off := offs[i]
	data[off+5] ^= 0x10 // past the length and the checksum: the record itself
	require.NoError(t, os.WriteFile(path, data, 0o640))
	return off
}

func TestFlippedBitInMiddleSegment(t *testing.T) {
	checkDamage(t, func(dir string) (string, int) {
		f := segmentFiles(t, dir)[1]
		return f.path, flipInEntry(t, f.path, 3)
	})
}

func TestFlippedBitEarlyInLastSegment(t *testing.T) {
	// Later metas say the entry had been fsynced: corruption, not a torn tail.
	checkDamage(t, func(dir string) (string, int) {
		path := lastSegment(t, dir)
		return path, flipInEntry(t, path, 1)
	})
}

func TestFlippedLengthByteInLastSegment(t *testing.T) {
	// The entry framing itself is damaged: the scanner resynchronises on the
	// next valid entry and still finds the metas that prove durability.
	checkDamage(t, func(dir string) (string, int) {
		path := lastSegment(t, dir)
		data := readFile(t, path)
		off := entryOffsets(t, data)[1]
		data[off] ^= 0x40
		require.NoError(t, os.WriteFile(path, data, 0o640))
		return path, off
	})
}

func TestDeletedMiddleSegment(t *testing.T) {
	checkDamage(t, func(dir string) (string, int) {
		files := segmentFiles(t, dir)
		require.NoError(t, os.Remove(files[2].path))
		return files[3].path, -1
	})
}

func TestDeletedFirstSegment(t *testing.T) {
	checkDamage(t, func(dir string) (string, int) {
		files := segmentFiles(t, dir)
		require.NoError(t, os.Remove(files[0].path))
		return files[1].path, -1
	})
}

func TestInterruptedTruncationIsFinished(t *testing.T) {
	// A crash inside tidwall/wal's TruncateFront leaves a .START file (the
	// new first segment) next to the old segments: Open lets tidwall/wal
	// finish the truncation, and the meta written before it vouches for the
	// new start.
	dir := testDir(t)
	buildLog(t, dir, 1024, 60)
	files := segmentFiles(t, dir)
	require.Greater(t, len(files), 3)
	cut := files[2].start - 1 // the last entry of files[1]
	h := &harness{t: t, dir: dir, opts: Options{SegmentSize: 1024}}
	h.open()
	h.l.mu.Lock()
	h.l.logStart = cut
	h.l.forceSync = h.l.appendMeta()
	h.l.mu.Unlock()
	signal(h.l.wake)
	h.close()

	data := readFile(t, files[1].path)
	offs := entryOffsets(t, data)
	start := segmentPath(dir, cut) + ".START"
	require.NoError(t, os.WriteFile(start, data[offs[len(offs)-2]:], 0o640))
	h.open()
	assert.NoFileExists(t, start)
	assert.Equal(t, int(cut), h.l.Stats().OldestIndex)
	got := h.q.loggedCopy()
	h.restart()
	requireRestored(t, got, h.q)
	h.close()
}
