package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// After a million jobs are put and then all deleted, the server's RSS goes
// back to within 2x of what it was idle, within 30 s (beanstalkd keeps its
// peak until it restarts). The server is the real binary, built without
// the race detector, so this runs in `make test` too; the client here may
// be slow under -race, which only makes the drain take longer.
func TestServerGivesMemoryBackAfterDrain(t *testing.T) {
	if testing.Short() {
		t.Skip("puts a million jobs")
	}
	p := enginetest.StartProcess(t, "-l", "127.0.0.1", "-p", "0")
	c := enginetest.Dial(t, p.Addr())
	c.Do("use drain\r\n", "USING drain\r\n")
	idle := rssBytes(t, p.Pid())

	const n, batch = 1_000_000, 1000
	body := strings.Repeat("x", 100)
	var put strings.Builder
	for range batch {
		fmt.Fprintf(&put, "put 0 0 60 %d\r\n%s\r\n", len(body), body)
	}
	ids := make([]uint64, 0, n)
	r := c.Reader()
	for len(ids) < n {
		c.Send(put.String())
		require.NoError(t, c.NetConn().SetReadDeadline(time.Now().Add(enginetest.Timeout)))
		for range batch {
			line, err := r.ReadString('\n')
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(line, "INSERTED "), "put: %q", line)
			id, err := strconv.ParseUint(strings.TrimSpace(line[len("INSERTED "):]), 10, 64)
			require.NoError(t, err)
			ids = append(ids, id)
		}
	}
	peak := rssBytes(t, p.Pid())

	var del strings.Builder
	for i := 0; i < n; i += batch {
		del.Reset()
		for _, id := range ids[i : i+batch] {
			fmt.Fprintf(&del, "delete %d\r\n", id)
		}
		c.Send(del.String())
		require.NoError(t, c.NetConn().SetReadDeadline(time.Now().Add(enginetest.Timeout)))
		for range batch {
			line, err := r.ReadString('\n')
			require.NoError(t, err)
			require.Equal(t, "DELETED\r\n", line)
		}
	}
	require.Equal(t, int64(0), c.Stat("current-jobs-ready"))

	// Poll, not sleep-and-assert: the result is the first reading within
	// 2x of idle, or the last one after 30 s.
	drained, start := rssBytes(t, p.Pid()), time.Now()
	for drained > 2*idle && time.Since(start) < 30*time.Second {
		time.Sleep(250 * time.Millisecond)
		drained = rssBytes(t, p.Pid())
	}
	t.Logf("server RSS idle %d MiB, with 1M jobs %d MiB, drained %d MiB after %.1f s",
		idle>>20, peak>>20, drained>>20, time.Since(start).Seconds())
	assert.Greater(t, peak, 4*idle, "the jobs did take memory")
	assert.LessOrEqual(t, drained, 2*idle, "RSS within 2x of idle 30 s after the drain")
}
