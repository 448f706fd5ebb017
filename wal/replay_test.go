package wal

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// requireRestored checks that the restart brought back exactly want.
func requireRestored(t *testing.T, want map[uint64]jobs.Record, q *fakeQueue) {
	t.Helper()
	got := map[uint64]jobs.Record{}
	for _, r := range q.restored {
		got[r.ID] = r
	}
	require.Equal(t, len(want), len(got), "number of jobs restored")
	for id, w := range want {
		g, ok := got[id]
		require.True(t, ok, "job %d not restored", id)
		w.Kind = jobs.RecPut
		assert.Equal(t, w, g, "job %d", id)
	}
}

func TestReplayEveryTransition(t *testing.T) {
	for _, opts := range []Options{{}, {SyncInterval: time.Millisecond}, {NoSync: true}} {
		h := newHarness(t, opts)
		h.open()
		q := h.q
		ready, _, err := q.put("default", 10, 0, "ready")
		require.NoError(t, err)
		delayed, _, _ := q.put("emails", 20, time.Hour, "delayed")
		reserved, _, _ := q.put("default", 30, 0, "reserved")
		q.reserve(reserved)
		released, _, _ := q.put("default", 40, 0, "released")
		q.reserve(released)
		q.release(released, 5, 0) // new priority must survive
		relDelayed, _, _ := q.put("default", 50, 0, "released with delay")
		q.reserve(relDelayed)
		q.release(relDelayed, 6, time.Minute)
		buried, _, _ := q.put("other", 60, 0, "buried")
		q.reserve(buried)
		q.bury(buried, 7)
		kicked, _, _ := q.put("other", 70, 0, "kicked")
		q.reserve(kicked)
		q.bury(kicked, 8)
		q.kick(kicked)
		kickedDelayed, _, _ := q.put("other", 80, time.Hour, "kicked from delayed")
		q.kick(kickedDelayed)
		reservedJob, _, _ := q.put("default", 90, time.Hour, "reserve-job")
		_, err = q.reserveJob(reservedJob)
		require.NoError(t, err)
		deleted, _, _ := q.put("default", 1, 0, "deleted")
		seq, err := q.del(deleted)
		require.NoError(t, err)
		require.NoError(t, h.wait(seq))
		want := q.loggedCopy()
		assert.Len(t, want, 9)
		h.restart()
		requireRestored(t, want, h.q)

		byID := map[uint64]jobs.Record{}
		for _, r := range h.q.restored {
			byID[r.ID] = r
		}
		assert.Equal(t, jobs.Ready, byID[ready].State)
		assert.Equal(t, jobs.Delayed, byID[delayed].State)
		assert.Equal(t, int64(1_000_000_000)+int64(time.Hour), byID[delayed].Deadline, "absolute deadline kept")
		assert.Equal(t, jobs.Ready, byID[reserved].State, "reserved comes back ready")
		assert.Equal(t, uint32(5), byID[released].Pri, "release priority kept")
		assert.Equal(t, jobs.Delayed, byID[relDelayed].State)
		assert.Equal(t, uint32(6), byID[relDelayed].Pri)
		assert.Equal(t, jobs.Buried, byID[buried].State)
		assert.Equal(t, uint32(1), byID[buried].Buries)
		assert.Equal(t, jobs.Ready, byID[kicked].State)
		assert.Equal(t, uint32(1), byID[kicked].Kicks)
		assert.Equal(t, jobs.Ready, byID[kickedDelayed].State)
		assert.Equal(t, jobs.Ready, byID[reservedJob].State, "reserve-job comes back ready")
		assert.Equal(t, uint32(1), byID[reservedJob].Reserves)
		assert.NotContains(t, byID, deleted)
		assert.Equal(t, "emails", byID[delayed].Tube)
		assert.Equal(t, "delayed", string(byID[delayed].Body))

		// Restored in order of first appearance.
		for i := 1; i < len(h.q.restored); i++ {
			assert.Less(t, h.q.restored[i-1].ID, h.q.restored[i].ID)
		}
		h.close()
	}
}

func TestIDsNeverRepeat(t *testing.T) {
	h := newHarness(t, testOptions(t))
	h.open()
	var last uint64
	for range 5 {
		id, _, err := h.q.put("default", 0, 0, "x")
		require.NoError(t, err)
		last = id
	}
	// Delete the newest jobs, so no live job holds the highest id.
	for id := last; id > last-3; id-- {
		seq, err := h.q.del(id)
		require.NoError(t, err)
		require.NoError(t, h.wait(seq))
	}
	h.restart()
	assert.Equal(t, last+1, h.q.next, "ids continue above the deleted newest job")

	// Also after compaction dropped every record that named the top ids.
	for range 3000 {
		id, _, err := h.q.put("default", 0, 0, "padding padding padding")
		require.NoError(t, err)
		last = id
	}
	for id := last; id > last-3000; id-- {
		_, err := h.q.del(id)
		require.NoError(t, err)
	}
	h.settle()
	assert.Greater(t, h.l.Stats().OldestIndex, 1, "the front was truncated")
	h.restart()
	assert.Equal(t, last+1, h.q.next)
}

func TestEmptyLogAndReopen(t *testing.T) {
	h := newHarness(t, testOptions(t))
	h.open()
	assert.Empty(t, h.q.restored)
	st := h.l.Stats()
	assert.Equal(t, 1, st.OldestIndex)
	assert.Equal(t, 1, st.CurrentIndex)
	h.restart()
	h.restart()
	assert.Empty(t, h.q.restored)
	assert.Equal(t, uint64(1), h.q.next)
}

func TestFileAndStats(t *testing.T) {
	opts := testOptions(t)
	opts.SegmentSize = 1024
	h := newHarness(t, opts)
	h.open()
	var ids []uint64
	var seq uint64
	for range 100 {
		id, s, err := h.q.put("default", 0, 0, "some body of a job")
		require.NoError(t, err)
		ids, seq = append(ids, id), s
	}
	require.NoError(t, h.wait(seq))
	st := h.l.Stats()
	assert.Equal(t, int64(100), st.Written)
	assert.Greater(t, st.CurrentIndex, st.OldestIndex, "several segments")
	first, lastFile := h.l.File(ids[0]), h.l.File(ids[99])
	assert.Equal(t, 1, first)
	assert.Equal(t, st.CurrentIndex, lastFile)
	assert.FileExists(t, segmentPath(h.dir, uint64(lastFile)))
	assert.Equal(t, 0, h.l.File(12345))
	h.restart()
	assert.Equal(t, lastFile, h.l.File(ids[99]), "File survives a restart")
}

func TestHugeJob(t *testing.T) {
	h := newHarness(t, testOptions(t))
	h.open()
	body := strings.Repeat("h", maxPending+1)
	id, seq, err := h.q.put("default", 0, 0, body)
	require.NoError(t, err, "a job larger than the pending cap is taken when nothing waits")
	require.NoError(t, h.wait(seq))
	h.restart()
	require.Len(t, h.q.restored, 1)
	assert.Equal(t, id, h.q.restored[0].ID)
	assert.Equal(t, body, string(h.q.restored[0].Body))
}

func TestReplayClear(t *testing.T) {
	h := newHarness(t, Options{})
	h.open()
	var gone []uint64
	for i := range 20 {
		tube := "keep"
		if i%2 == 0 {
			tube = "drop"
		}
		id, _, err := h.q.put(tube, uint32(i), 0, fmt.Sprintf("job %d", i))
		require.NoError(t, err)
		if tube == "drop" {
			gone = append(gone, id)
		}
	}
	ids, seq, err := h.q.clear("drop")
	require.NoError(t, err)
	require.Equal(t, gone, ids)
	require.NoError(t, h.wait(seq))
	want := h.q.loggedCopy()
	require.Len(t, want, 10)
	assert.Equal(t, 0, h.l.File(gone[0]), "a cleared job has no record any more")

	h.restart()
	requireRestored(t, want, h.q)
	for _, id := range gone {
		assert.NotContains(t, h.q.jobs, id, "job %d was cleared", id)
	}
	h.restart() // the clear record itself survives another open
	requireRestored(t, want, h.q)
}

func TestReplayClearOfCompactedJobs(t *testing.T) {
	// A clear naming ids whose records are gone counts as orphans, and its
	// highest id still keeps ids from repeating.
	h := newHarness(t, Options{})
	h.open()
	seq, err := h.l.Append(jobs.Record{Kind: jobs.RecClear, IDs: []uint64{70, 71}})
	require.NoError(t, err)
	require.NoError(t, h.wait(seq))
	h.restart()
	assert.Empty(t, h.q.restored)
	id, _, err := h.q.put("t", 1, 0, "x")
	require.NoError(t, err)
	assert.Greater(t, id, uint64(71))
}
