package wal

import (
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeletedLastSegment(t *testing.T) {
	checkDamage(t, func(dir string) (string, int) {
		path := lastSegment(t, dir)
		require.NoError(t, os.Remove(path))
		return path, -1
	})
}

func TestEmptiedLastSegment(t *testing.T) {
	checkDamage(t, func(dir string) (string, int) {
		path := lastSegment(t, dir)
		require.NoError(t, os.Truncate(path, 0))
		return path, -1
	})
}

func TestLastSegmentCutBeforeWhatWasFsynced(t *testing.T) {
	// A cut in the middle of an entry the manifest vouches for (the first
	// of the last segment, at least) is not a torn write.
	checkDamage(t, func(dir string) (string, int) {
		path := lastSegment(t, dir)
		require.NoError(t, os.Truncate(path, 3))
		return path, -1
	})
}

func TestEverySegmentDeleted(t *testing.T) {
	dir := testDir(t)
	buildLog(t, dir, 1024, 30)
	for _, f := range segmentFiles(t, dir) {
		require.NoError(t, os.Remove(f.path))
	}
	_, err := Open(dir, Options{SegmentSize: 1024})
	require.ErrorIs(t, err, ErrCorrupt)
	assert.Contains(t, err.Error(), "no segment file exists")
	assert.Contains(t, err.Error(), "salvage")

	h := &harness{t: t, dir: dir, opts: Options{SegmentSize: 1024, Salvage: true}}
	h.open()
	assert.Empty(t, h.q.restored)
	h.close()
}

func TestManifestFollowsNewSegments(t *testing.T) {
	for _, opts := range []Options{{}, {NoSync: true}} {
		opts.SegmentSize = 1024
		h := newHarness(t, opts)
		h.open()
		for i := 0; len(segmentFiles(t, h.dir)) < 4; i++ {
			_, seq, err := h.q.put("t", 1, 0, "some job body that takes room")
			require.NoError(t, err)
			require.NoError(t, h.wait(seq))
		}
		h.close() // the writer's last step has noted the newest segment
		m, found, err := readManifest(h.dir)
		require.NoError(t, err)
		require.True(t, found)
		files := segmentFiles(t, h.dir)
		assert.Equal(t, files[len(files)-1].start, m.last, "NoSync %v: the manifest names the last segment", opts.NoSync)
		assert.GreaterOrEqual(t, m.lastHolds, m.last-1)
	}
}

func TestDamagedManifestIsRefused(t *testing.T) {
	dir := testDir(t)
	want := buildLog(t, dir, 1024, 30)
	path := filepath.Join(dir, manifestName)
	data := readFile(t, path)
	data[len(manifestVersion)+6] ^= 1 // a digit of "last"
	require.NoError(t, os.WriteFile(path, data, 0o640))
	_, err := Open(dir, Options{SegmentSize: 1024})
	require.ErrorIs(t, err, ErrCorrupt)
	assert.Contains(t, err.Error(), path)

	h := &harness{t: t, dir: dir, opts: Options{SegmentSize: 1024, Salvage: true}}
	h.open()
	requireRestored(t, want, h.q)
	h.close()
	_, found, err := readManifest(dir)
	require.NoError(t, err, "salvage writes a fresh manifest")
	assert.True(t, found)
}

func TestLogWithoutManifestIsAccepted(t *testing.T) {
	// A log written before the manifest existed opens and gets one.
	dir := testDir(t)
	want := buildLog(t, dir, 1024, 30)
	require.NoError(t, os.Remove(filepath.Join(dir, manifestName)))
	h := &harness{t: t, dir: dir, opts: Options{SegmentSize: 1024}}
	h.open()
	requireRestored(t, want, h.q)
	h.close()
	m, found, err := readManifest(dir)
	require.NoError(t, err)
	require.True(t, found)
	files := segmentFiles(t, dir)
	assert.Equal(t, files[len(files)-1].start, m.last)
}

func TestManifestRoundTripAndRefusals(t *testing.T) {
	m := manifest{last: 1 << 40, lastHolds: 1<<40 + 17}
	got, err := parseManifest(m.marshal())
	require.NoError(t, err)
	assert.Equal(t, m, got)
	for _, bad := range []string{
		"",
		manifestVersion + "\nlast 1\n",
		"stalkd-wal-manifest 9\nlast 1\nlast_holds 2\n",
		manifestVersion + "\nlast 1\n",
		manifestVersion + "\nlast 1\nlast 2\nlast_holds 2\n",
		manifestVersion + "\nlast 1\nlast_holds x\n",
		manifestVersion + "\nlast 1\nlast_holds 2\nfuture 3\n",
	} {
		b := (&manifestBytes{s: bad}).sealed()
		_, err := parseManifest(b)
		assert.Error(t, err, "%q", bad)
	}
	b := m.marshal()
	b[len(b)-2] ^= 1
	_, err = parseManifest(b)
	assert.Error(t, err, "checksum")
}

// manifestBytes seals arbitrary manifest text with a valid checksum.
type manifestBytes struct{ s string }

func (m *manifestBytes) sealed() []byte {
	return []byte(m.s + "crc32c " + hex32(m.s) + "\n")
}

func hex32(s string) string {
	return fmt.Sprintf("%08x", crc32.Checksum([]byte(s), castagnoli))
}
