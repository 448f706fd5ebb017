package wal

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/stalkd/stalkd/jobs"
)

// TestFlushAllocatesNothing: a put appended and written by its event loop
// (Append, then Flush: encode, writev, marks) allocates nothing in the
// steady state, small body or large (gathered).
func TestFlushAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, size := range []int{100, 64 << 10} {
		opts := testOptions(t)
		opts.SegmentSize = 256 << 20
		opts.SyncInterval = 1 << 40 // the timer never fires during the test
		h := newHarness(t, opts)
		h.open()
		id := uint64(1 << 20)
		body := make([]byte, size)
		put := func() {
			id++
			if _, err := h.l.Append(jobs.Record{Kind: jobs.RecPut, ID: id, Tube: "default", State: jobs.Ready, Body: body}); err != nil {
				t.Fatal(err)
			}
			h.l.Flush()
		}
		for range locChunk { // the table's first chunks, the buffers
			put()
		}
		assert.Zero(t, testing.AllocsPerRun(1000, put), "body of %d bytes", size)
		h.close()
	}
}
