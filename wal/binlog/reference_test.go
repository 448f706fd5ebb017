package binlog_test

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/wal/binlog"
)

// TestReadsWhatTheReferenceReplays drives beanstalkd 1.12 into leaving jobs
// in every state over several binlog files, kills it, and checks that
// ReadDir finds exactly the jobs beanstalkd itself reports after restarting
// on a copy of the directory: every stats-job field (file included) and
// every body. This pins the record layout against the real thing.
func TestReadsWhatTheReferenceReplays(t *testing.T) {
	dir := t.TempDir()
	maxID := enginetest.WriteReferenceBinlog(t, dir)
	copyDir := t.TempDir()
	enginetest.CopyDir(t, dir, copyDir)

	d, err := binlog.ReadDir(dir, 0)
	require.NoError(t, err)
	require.Empty(t, d.Problems)
	require.GreaterOrEqual(t, len(d.Files), 3)
	require.Equal(t, maxID, d.MaxID)

	ref := enginetest.Reference(t, append([]string{"-b", copyDir}, enginetest.ReferenceBinlogArgs...)...)
	want := enginetest.JobsByID(t, ref.Addr(), maxID)
	require.NotEmpty(t, want)

	now := time.Now().UnixNano()
	got := make(map[uint64]enginetest.JobView)
	states := map[string]int{}
	for _, j := range d.Jobs {
		got[j.ID] = view(j, now)
		states[got[j.ID].Stats["state"]]++
	}
	for _, s := range []string{"ready", "delayed", "buried"} {
		require.NotZero(t, states[s], "no %s job in the scenario: %v", s, states)
	}
	t.Logf("%d jobs in %d files: %v", len(d.Jobs), len(d.Files), states)
	enginetest.RequireSameJobs(t, want, got, 3)
}

// view renders a replayed job as beanstalkd's stats-job and peek show it.
func view(j *binlog.Job, now int64) enginetest.JobView {
	r := j.Restarted(now)
	left := int64(0)
	if r.State == binlog.Delayed {
		left = (r.Deadline - now) / 1e9
	}
	u := func(n uint32) string { return strconv.FormatUint(uint64(n), 10) }
	return enginetest.JobView{
		Body: j.Body[:len(j.Body)-2],
		Stats: map[string]string{
			"id": strconv.FormatUint(r.ID, 10), "tube": j.Tube, "state": r.State.String(),
			"pri": u(r.Pri), "age": fmt.Sprint((now - r.Created) / 1e9), "delay": fmt.Sprint(r.Delay / 1e9),
			"ttr": fmt.Sprint(r.TTR / 1e9), "time-left": fmt.Sprint(left), "file": strconv.Itoa(j.File),
			"reserves": u(r.Reserves), "timeouts": u(r.Timeouts), "releases": u(r.Releases),
			"buries": u(r.Buries), "kicks": u(r.Kicks),
		},
	}
}
