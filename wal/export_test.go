package wal

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal/binlog"
)

// TestExportBinlog: binlog -> import -> stalkd log -> export -> binlog
// gives back the same jobs, as beanstalkd would show them after loading
// either, and beanstalkd's ids continue above every id stalkd handed out.
func TestExportBinlog(t *testing.T) {
	dir := testDir(t)
	writeBinlog(t, dir)
	before, err := binlog.ReadDir(dir, 0)
	require.NoError(t, err)
	_, err = ImportBinlog(dir, importOptions(t))
	require.NoError(t, err)

	l, err := Open(dir, testOptions(t))
	require.NoError(t, err)
	q := jobs.New(jobs.Config{Journal: l, Clock: jobs.NewManualClock(importNow)})
	require.NoError(t, l.Replay(q))
	_, err = ReadJobs(dir, func(*jobs.Record) {})
	require.ErrorIs(t, err, ErrLocked, "a server holds the log")
	s := q.NewSession(func() {})
	id, _, err := s.Put(jobs.PutRequest{Body: []byte("x")})
	require.NoError(t, err)
	_, err = s.Delete(id)
	require.NoError(t, err)
	require.NoError(t, l.Close())

	to := testDir(t)
	rep, err := ExportBinlog(dir, to, ExportOptions{Now: time.Unix(0, importNow)})
	require.NoError(t, err)
	require.Equal(t, binlog.Counts{Ready: 3, Delayed: 1, Buried: 1}, rep.Counts)
	require.Equal(t, 5, rep.Jobs)
	require.Len(t, rep.Files, 1)
	require.GreaterOrEqual(t, rep.IDFloor, id, "beanstalkd's next id is above stalkd's")

	after, err := binlog.ReadDir(to, 0)
	require.NoError(t, err)
	require.Empty(t, after.Problems)
	require.Equal(t, rep.IDFloor, after.MaxID)
	require.Len(t, after.Jobs, len(before.Jobs))
	byID := map[uint64]*binlog.Job{}
	for _, j := range before.Jobs {
		byID[j.ID] = j
	}
	for _, j := range after.Jobs {
		b := byID[j.ID]
		require.NotNil(t, b, "job %d", j.ID)
		want, got := b.Restarted(importNow), j.Restarted(importNow)
		require.Equal(t, want.State, got.State, "job %d", j.ID)
		if want.State != binlog.Delayed {
			want.Deadline, got.Deadline = 0, 0
		}
		want.BodySize, got.BodySize = 0, 0
		require.Equal(t, want, got, "job %d", j.ID)
		require.Equal(t, b.Tube, j.Tube)
		require.Equal(t, string(b.Body), string(j.Body))
	}

	_, err = ExportBinlog(dir, to, ExportOptions{})
	require.ErrorIs(t, err, binlog.ErrNotEmpty)
}
