package wal

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goldenManifests are testdata/manifest-v1 (written by builds before the
// id lease) and manifest-v2, both matching the segments of testdata/log-v1
// (its last segment starts at entry 31). Every later build must read them.
var goldenManifests = []struct {
	file string
	want manifest
	next uint64 // the first id a put gets on log-v1 with this manifest
}{
	{"manifest-v1", manifest{last: 31, lastHolds: 31}, 25},
	{"manifest-v2", manifest{last: 31, lastHolds: 31, idLease: 1000}, 1001},
}

func TestGoldenManifests(t *testing.T) {
	if *update {
		v1 := "stalkd-wal-manifest 1\nlast 31\nlast_holds 31\n"
		require.NoError(t, os.WriteFile(filepath.Join("testdata", "manifest-v1"), []byte(v1+"crc32c "+hex32(v1)+"\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join("testdata", "manifest-v2"), goldenManifests[1].want.marshal(), 0o644))
	}
	for _, g := range goldenManifests {
		data := readFile(t, filepath.Join("testdata", g.file))
		got, err := parseManifest(data)
		require.NoError(t, err, g.file)
		assert.Equal(t, g.want, got, g.file)

		h := newHarness(t, testOptions(t))
		copySegments(t, filepath.Join("testdata", "log-v1"), h.dir)
		require.NoError(t, os.WriteFile(filepath.Join(h.dir, manifestName), data, 0o640))
		h.open()
		id, _, err := h.q.put("t", 1, 0, "next")
		require.NoError(t, err)
		assert.Equal(t, g.next, id, "%s: ids continue above the records and the lease", g.file)
		h.close()
	}
	assert.Equal(t, string(readFile(t, filepath.Join("testdata", "manifest-v2"))), string(goldenManifests[1].want.marshal()),
		"the manifest written today is version 2, byte for byte")
}

func TestManifestVersionsRefuseEachOthersFields(t *testing.T) {
	for _, bad := range []string{
		manifestVersionV1 + "\nlast 1\nlast_holds 2\nid_lease 3\n", // version 1 had no lease
		manifestVersion + "\nlast 1\nlast_holds 2\n",               // version 2 must have one
		manifestVersion + "\nlast 1\nlast_holds 2\nid_lease 3\nid_lease 4\n",
	} {
		_, err := parseManifest((&manifestBytes{s: bad}).sealed())
		assert.Error(t, err, "%q", bad)
	}
}
