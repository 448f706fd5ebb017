package embed

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memChildEnv makes the test binary run memDrainChild instead of the tests.
const memChildEnv = "STALKD_MEM_CHILD"

// After a million jobs are put and then all deleted, the process's RSS goes
// back to within 2x of what it was idle, within 30 s (the reference never
// gives it back). It runs in a child process, so that the RSS is the
// queue's alone and not the test binary's other tests'.
func TestMemoryGoesBackAfterDrain(t *testing.T) {
	if os.Getenv(memChildEnv) != "" {
		memDrainChild(t)
		return
	}
	if testing.Short() || enginetest.RaceEnabled {
		t.Skip("puts a million jobs; the race detector keeps its shadow memory")
	}
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("needs /proc")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryGoesBackAfterDrain$", "-test.v")
	cmd.Env = append(os.Environ(), memChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	var r memDrainResult
	for _, line := range strings.Split(string(out), "\n") {
		if i := strings.Index(line, "MEMRESULT "); i >= 0 {
			require.NoError(t, json.Unmarshal([]byte(line[i+len("MEMRESULT "):]), &r))
		}
	}
	require.NotZero(t, r.IdleBytes, "no result from the child:\n%s", out)
	t.Logf("RSS idle %d MiB, with 1M jobs %d MiB, drained %d MiB after %.1f s",
		r.IdleBytes>>20, r.PeakBytes>>20, r.DrainedBytes>>20, r.AfterSeconds)
	assert.Greater(t, r.PeakBytes, 4*r.IdleBytes, "the jobs did take memory")
	assert.LessOrEqual(t, r.DrainedBytes, 2*r.IdleBytes, "RSS within 2x of idle 30 s after the drain")
}

type memDrainResult struct {
	IdleBytes, PeakBytes, DrainedBytes int64
	AfterSeconds                       float64
}

func memDrainChild(t *testing.T) {
	const n = 1_000_000
	q, err := Open(Options{})
	require.NoError(t, err)
	defer func() { _ = q.Close() }()
	runtime.GC()
	var r memDrainResult
	r.IdleBytes = rss(t)
	body := make([]byte, 100)
	ids := make([]uint64, 0, n)
	for range n {
		id, err := q.PutNoWait("default", body, PutOptions{TTR: time.Minute})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	r.PeakBytes = rss(t)
	ctx := context.Background()
	for _, id := range ids {
		require.NoError(t, q.Delete(ctx, id))
	}
	ids = nil
	// Poll, not sleep-and-assert: the result is the first reading within
	// 2x of idle, or the last one after 30 s.
	start := time.Now()
	for {
		r.DrainedBytes = rss(t)
		r.AfterSeconds = time.Since(start).Seconds()
		if r.DrainedBytes <= 2*r.IdleBytes || r.AfterSeconds >= 30 {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	b, _ := json.Marshal(r)
	fmt.Printf("MEMRESULT %s\n", b)
}

// rss reads the process's resident set size from /proc/self/statm.
func rss(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	require.NoError(t, err)
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	require.NoError(t, err)
	return pages * int64(os.Getpagesize())
}
