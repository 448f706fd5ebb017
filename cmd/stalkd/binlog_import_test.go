package main

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// TestImportReferenceBinlog is the switch from beanstalkd: 1.12 leaves
// jobs in every state over several binlog files and is killed; stalkd
// started on the directory serves every job exactly as beanstalkd itself
// does after restarting on a copy (every stats-job field but file, and
// every body), logs one import line, and hands out ids above the old ones.
func TestImportReferenceBinlog(t *testing.T) {
	if testing.Short() {
		t.Skip("runs beanstalkd and the stalkd binary")
	}
	enginetest.Build(t) // before the clock of the jobs' ages starts
	dir := t.TempDir()
	maxID := enginetest.WriteReferenceBinlog(t, dir)
	copyDir := t.TempDir()
	enginetest.CopyDir(t, dir, copyDir)
	ref := enginetest.Reference(t, append([]string{"-b", copyDir}, enginetest.ReferenceBinlogArgs...)...)
	want := enginetest.JobsByID(t, ref.Addr(), maxID)

	srv := enginetest.StartProcess(t, "-l", "127.0.0.1", "-p", "0", "-b", dir, "-z", "70000")
	got := enginetest.JobsByID(t, srv.Addr(), maxID)
	enginetest.RequireSameJobs(t, want, got, 3, "file")
	require.Equal(t, 1, srv.Count(`"message":"imported beanstalkd's binlog"`), srv.Log())
	states := map[string]int{}
	for _, j := range got {
		states[j.Stats["state"]]++
	}
	t.Logf("imported %d jobs: %v", len(got), states)

	c := enginetest.Dial(t, srv.Addr())
	r := c.Ask("put 0 0 10 1\r\nx\r\n")
	id, ok := strings.CutPrefix(r.Head, "INSERTED ")
	require.True(t, ok, r.String())
	require.Greater(t, mustUint(t, id), maxID, "ids continue above the binlog's")

	// beanstalkd refuses the directory while stalkd holds it (its lock is
	// the same file, locked with fcntl as beanstalkd locks it).
	out, err := exec.Command(enginetest.ReferencePath, "-l", "127.0.0.1", "-p", "0", "-b", dir).CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "beanstalkd started on stalkd's directory: %s", out)
	require.Equal(t, 10, ee.ExitCode(), "%s", out)

	srv.Stop()
	again := enginetest.StartProcess(t, "-l", "127.0.0.1", "-p", "0", "-b", dir, "-z", "70000")
	require.Zero(t, again.Count("imported beanstalkd's binlog"), "imported once")
	require.Len(t, enginetest.JobsByID(t, again.Addr(), maxID), len(want))
}

// TestRefusesDirectoryBeanstalkdHolds: stalkd does not start on the
// directory of a beanstalkd that is running (it would read files still
// being written), and says who holds it.
func TestRefusesDirectoryBeanstalkdHolds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs beanstalkd and the stalkd binary")
	}
	dir := t.TempDir()
	enginetest.Reference(t, "-b", dir)
	out, err := exec.Command(enginetest.Build(t), "-l", "127.0.0.1", "-p", "0", "-b", dir).CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "%s", out)
	require.Equal(t, exitWALDir, ee.ExitCode(), "%s", out)
	require.Contains(t, string(out), "held with fcntl by pid")
}

func mustUint(t *testing.T, s string) uint64 {
	t.Helper()
	var n uint64
	_, err := fmt.Sscan(s, &n)
	require.NoError(t, err)
	return n
}
