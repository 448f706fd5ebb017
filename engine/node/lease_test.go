package node_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// TestIDsNeverRepeatAfterALostTail runs the real binary with -F (ids are
// acknowledged once written, before any fsync), SIGKILLs it, then loses
// the end of the log as a machine crash can (the last segment emptied)
// and restarts with -S: the next id must be above every id ever
// acknowledged, although the records naming them are gone.
func TestIDsNeverRepeatAfterALostTail(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the real binary")
	}
	dir := enginetest.ShmDir(t)
	srv := startCrashServer(t, dir, "-F", "-s", "4096")
	c, err := enginetest.DialClient(srv.Addr())
	require.NoError(t, err)
	var top uint64
	for i := range 300 {
		body := fmt.Sprintf("job %d %s", i, strings.Repeat("x", 40))
		line, _, err := c.Do(fmt.Sprintf("put 0 0 60 %d\r\n%s\r\n", len(body), body))
		require.NoError(t, err)
		id, err := strconv.ParseUint(strings.TrimPrefix(line, "INSERTED "), 10, 64)
		require.NoError(t, err, line)
		top = max(top, id)
	}
	c.Close()
	srv.Kill()

	segs, err := filepath.Glob(filepath.Join(dir, "0*"))
	require.NoError(t, err)
	sort.Strings(segs)
	require.Greater(t, len(segs), 2, "the log spans several segments")
	require.NoError(t, os.Truncate(segs[len(segs)-1], 0))
	require.NoError(t, os.Remove(segs[len(segs)-2]))

	srv = startCrashServer(t, dir, "-F", "-s", "4096", "-S")
	c, err = enginetest.DialClient(srv.Addr())
	require.NoError(t, err)
	defer c.Close()
	line, _, err := c.Do("put 0 0 60 5\r\nafter\r\n")
	require.NoError(t, err)
	id, err := strconv.ParseUint(strings.TrimPrefix(line, "INSERTED "), 10, 64)
	require.NoError(t, err, line)
	require.Greater(t, id, top, "ids never repeat, though the records of the newest jobs are lost")
	srv.Kill()
}
