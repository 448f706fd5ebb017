package wal

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMetrics checks the monitoring figures after a workload that fsyncs
// (-f0) and compacts: fsyncs are counted into the histogram, compaction
// rounds are counted, and the size and segment figures match the files.
func TestMetrics(t *testing.T) {
	h := newHarness(t, testOptions(t)) // -f0, 4 KiB segments
	h.open()
	m := h.l.Metrics()
	assert.Zero(t, m.Compactions)
	var seq uint64
	keep, _, err := h.q.put("t", 1, time.Hour, "keep") // pins the front until compaction moves it
	require.NoError(t, err)
	for range 200 {
		id, _, err := h.q.put("t", 1, 0, strings.Repeat("x", 200))
		require.NoError(t, err)
		seq, err = h.q.del(id)
		require.NoError(t, err)
	}
	require.NoError(t, h.wait(seq))
	h.settle()

	m = h.l.Metrics()
	assert.Positive(t, m.FsyncCount)
	assert.Positive(t, m.FsyncSum)
	require.Len(t, m.FsyncCounts, len(FsyncBuckets))
	for i := 1; i < len(m.FsyncCounts); i++ {
		assert.LessOrEqual(t, m.FsyncCounts[i-1], m.FsyncCounts[i], "cumulative")
	}
	assert.LessOrEqual(t, m.FsyncCounts[len(m.FsyncCounts)-1], m.FsyncCount)
	assert.Positive(t, m.Compactions, "200 put+delete pairs in 4 KiB segments must compact")
	assert.Positive(t, m.Migrated, "job %d was moved forward", keep)
	assert.Equal(t, int64(401), m.Written-m.Migrated, "401 job records written, besides migrations")
	assert.Equal(t, len(segmentFiles(t, h.dir)), m.Segments)
	assert.Equal(t, logBytes(t, h.dir), m.Bytes)
}

func TestObserveFsyncBuckets(t *testing.T) {
	var m walMetrics
	m.observeFsync(50 * time.Microsecond) // first bucket
	m.observeFsync(time.Millisecond)      // exactly a bound: that bucket
	m.observeFsync(time.Minute)           // +Inf only
	assert.Equal(t, uint64(1), m.buckets[0].Load())
	assert.Equal(t, uint64(1), m.buckets[3].Load())
	assert.Equal(t, uint64(1), m.buckets[len(FsyncBuckets)].Load())
	assert.Equal(t, uint64(3), m.fsyncs.Load())
}
