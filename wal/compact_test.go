package wal

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// liveBytes is what the jobs in logged need in a perfectly compacted log:
// one whole record each.
func liveBytes(logged map[uint64]jobs.Record) int64 {
	var n int64
	for _, r := range logged {
		r.Kind = jobs.RecPut
		n += int64(entrySize(recordSize(&r)))
	}
	return n
}

// checkBound settles compaction and checks the log against the promised
// bound: at most 2 x live data + 2 segments (+ the one-entry segment a
// truncation leaves at the front). It returns log/live.
func checkBound(t *testing.T, h *harness) (logSize, live int64) {
	t.Helper()
	h.settle()
	live = liveBytes(h.q.loggedCopy())
	logSize = logBytes(t, h.dir)
	bound := 2*live + 2*h.opts.SegmentSize + 1024
	require.LessOrEqual(t, logSize, bound, "log %d bytes for %d live bytes", logSize, live)
	return logSize, live
}

func TestCompactionRandomWorkload(t *testing.T) {
	opts := testOptions(t)
	opts.NoSync = true
	opts.Logger = opts.Logger.Level(1) // info and above
	h := newHarness(t, opts)
	h.open()
	rng := rand.New(rand.NewPCG(1, 2))
	var worst float64
	ops := 40_000
	if testing.Short() {
		ops = 8_000
	}
	for i := range ops {
		ids := h.q.ids()
		target := 150 + 100*((i/5000)%3) // the live set grows and shrinks
		switch op := rng.IntN(100); {
		case len(ids) < target && op < 30 || len(ids) == 0:
			body := strings.Repeat("x", 10+rng.IntN(300))
			_, _, err := h.q.put(fmt.Sprintf("tube%d", rng.IntN(5)), rng.Uint32N(2000), time.Duration(rng.IntN(2))*time.Hour, body)
			require.NoError(t, err)
		default:
			id := ids[rng.IntN(len(ids))]
			var err error
			switch op % 7 {
			case 0:
				_, err = h.q.del(id)
			case 1:
				h.q.reserve(id)
				_, err = h.q.release(id, rng.Uint32N(100), time.Duration(rng.IntN(3))*time.Minute)
			case 2:
				_, err = h.q.bury(id, rng.Uint32N(100))
			case 3:
				_, err = h.q.kick(id)
			case 4:
				_, err = h.q.reserveJob(id)
			case 5:
				h.q.reserve(id)
			case 6:
				if len(ids) > target {
					_, err = h.q.del(id)
				}
			}
			require.NoError(t, err)
		}
		if i%4000 == 3999 {
			logSize, live := checkBound(t, h)
			worst = max(worst, float64(logSize)/float64(live))
		}
		if i%15000 == 14999 {
			h.restartRestores()
		}
	}
	logSize, live := checkBound(t, h)
	st := h.l.Stats()
	t.Logf("log %d bytes for %d live bytes at the end; worst settled log/live %.2f; %d records written, %d migrated; segments %d..%d",
		logSize, live, worst, st.Written, st.Migrated, st.OldestIndex, st.CurrentIndex)
	assert.Positive(t, st.Migrated, "compaction moved jobs")
	assert.Greater(t, st.OldestIndex, 1, "the front was truncated")
	h.restartRestores()
}

// TestCompactionRepeatedUpdates is the reference's bug: long-lived jobs
// buried, kicked and released with delay forever must not grow the log.
func TestCompactionRepeatedUpdates(t *testing.T) {
	opts := testOptions(t)
	opts.NoSync = true
	opts.Logger = opts.Logger.Level(1)
	h := newHarness(t, opts)
	h.open()
	var ids []uint64
	for i := range 20 {
		id, _, err := h.q.put("default", uint32(i), 0, strings.Repeat("y", 100))
		require.NoError(t, err)
		ids = append(ids, id)
	}
	rounds := 5000
	if testing.Short() {
		rounds = 1000
	}
	var written int64
	for r := range rounds {
		for _, id := range ids {
			var err error
			switch r % 3 {
			case 0:
				_, err = h.q.bury(id, uint32(r))
			case 1:
				_, err = h.q.kick(id)
			case 2:
				h.q.reserve(id)
				_, err = h.q.release(id, uint32(r), time.Second)
			}
			require.NoError(t, err)
		}
		if r%1000 == 999 {
			checkBound(t, h)
		}
	}
	logSize, live := checkBound(t, h)
	st := h.l.Stats()
	written = st.Written
	t.Logf("%d updates: log %d bytes for %d live bytes, %d migrated", written, logSize, live, st.Migrated)
	assert.Greater(t, written, int64(20*rounds-1))
	h.restartRestores()
}

// TestCompactionWithClears fills tubes and clears them whole, again and
// again: a clear record holds no live job, so the log stays within its
// bound, and the live-bytes count the compactor works from matches the
// jobs that are left.
func TestCompactionWithClears(t *testing.T) {
	opts := testOptions(t)
	opts.NoSync = true
	opts.Logger = opts.Logger.Level(1)
	h := newHarness(t, opts)
	h.open()
	keep, _, err := h.q.put("keep", 1, 0, "survivor")
	require.NoError(t, err)
	rounds := 60
	if testing.Short() {
		rounds = 20
	}
	for r := range rounds {
		tube := fmt.Sprintf("t%d", r%3)
		for i := range 40 {
			_, _, err := h.q.put(tube, uint32(i), 0, strings.Repeat("z", 80))
			require.NoError(t, err)
		}
		ids, _, err := h.q.clear(tube)
		require.NoError(t, err)
		require.Len(t, ids, 40)
		if r%10 == 9 {
			checkBound(t, h)
			h.l.mu.Lock()
			live, n := h.l.live, h.l.jobs.len()
			h.l.mu.Unlock()
			assert.Equal(t, liveBytes(h.q.loggedCopy()), live, "live bytes after clears")
			assert.Equal(t, 1, n, "only the survivor is indexed")
		}
	}
	assert.Positive(t, h.l.Stats().OldestIndex-1, "the front was truncated")
	h.restartRestores()
	assert.Contains(t, h.q.jobs, keep)
}
