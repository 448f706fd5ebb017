package wal

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	twal "github.com/tidwall/wal"

	"github.com/stalkd/stalkd/jobs"
)

// TestTidwallReadsTheLog: the journal writes its segments itself, in
// tidwall/wal's format (file names, binary entries), so tidwall/wal opens
// what it wrote - across several segments and a compaction's front
// truncation - and reads back every record the journal's own decoder
// reads.
func TestTidwallReadsTheLog(t *testing.T) {
	opts := testOptions(t)
	opts.NoSync = true
	h := newHarness(t, opts)
	h.open()
	keep := map[uint64]string{}
	for i := range 400 {
		body := fmt.Sprintf("job %d %s", i, strings.Repeat("t", i%50))
		id, _, err := h.q.put("default", uint32(i), 0, body)
		require.NoError(t, err)
		if i%10 == 0 {
			keep[id] = body
			continue
		}
		_, err = h.q.del(id)
		require.NoError(t, err)
	}
	h.settle()
	h.close()
	require.Greater(t, len(segmentFiles(t, h.dir)), 2, "several segments")
	first := segmentFiles(t, h.dir)[0].start
	require.Greater(t, first, uint64(1), "compaction truncated the front")

	w, err := twal.Open(h.dir, tidwallOptions(opts.SegmentSize))
	require.NoError(t, err)
	defer w.Close()
	lo, err := w.FirstIndex()
	require.NoError(t, err)
	hi, err := w.LastIndex()
	require.NoError(t, err)
	assert.Equal(t, first, lo)
	live := map[uint64]string{}
	for i := lo; i <= hi; i++ {
		data, err := w.Read(i)
		require.NoError(t, err, "entry %d", i)
		rec, err := DecodeRecord(data)
		if err == ErrMetaRecord {
			continue
		}
		require.NoError(t, err, "entry %d", i)
		switch rec.Kind {
		case jobs.RecPut:
			live[rec.ID] = string(rec.Body)
		case jobs.RecDelete:
			delete(live, rec.ID)
		}
	}
	for id, body := range keep {
		assert.Equal(t, body, live[id], "job %d as tidwall/wal reads it", id)
	}
}
