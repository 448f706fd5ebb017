package wal

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLargeBodiesAreGathered: a put's large body goes from the job to the
// kernel in the writer's writev, never into the writer's buffer, and comes
// back intact after a restart, between small records, across segments.
func TestLargeBodiesAreGathered(t *testing.T) {
	opts := testOptions(t)
	opts.SegmentSize = 256 << 10
	h := newHarness(t, opts)
	h.open()
	var last uint64
	for i := range 40 {
		size := []int{10, 4<<10 - 1, 4 << 10, 65535, 200_000}[i%5] // around gatherMin
		body := bytes.Repeat([]byte{byte('a' + i%26)}, size)
		copy(body, fmt.Sprint(i))
		_, seq, err := h.q.put("default", uint32(i), 0, string(body))
		require.NoError(t, err)
		last = seq
	}
	require.NoError(t, h.wait(last))
	h.l.wmu.Lock()
	grown := cap(h.l.wbuf)
	h.l.wmu.Unlock()
	assert.Less(t, grown, 65535, "the writer's buffer never held a large body")
	assert.Greater(t, len(segmentFiles(t, h.dir)), 3, "several segments")
	want := h.q.loggedCopy()
	h.restart()
	require.Equal(t, len(want), len(h.q.restored), "jobs restored")
	for _, r := range h.q.restored {
		require.True(t, bytes.Equal(want[r.ID].Body, r.Body), "job %d's body", r.ID) // no diff of 200 KB bodies
	}
}
