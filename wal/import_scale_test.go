package wal

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal/binlog"
)

// TestImportScale measures an import of a large binlog: STALKD_IMPORT_JOBS
// jobs (100-byte bodies, a quarter each delayed and buried, 10 tubes) in
// 10 MiB files written by binlog.Writer, imported, then opened and
// replayed into a queue. It is a measurement, not part of the suite:
// without the variable it is skipped.
//
//	STALKD_IMPORT_JOBS=1000000 go test ./wal -run TestImportScale -v
func TestImportScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("STALKD_IMPORT_JOBS"))
	if n <= 0 {
		t.Skip("a measurement: set STALKD_IMPORT_JOBS=1000000 to run it")
	}
	dir := t.TempDir()
	w, err := binlog.NewWriter(dir, 0)
	require.NoError(t, err)
	now := time.Now().UnixNano()
	body := []byte(fmt.Sprintf("%098d\r\n", 0))
	for id := 1; id <= n; id++ {
		r := binlog.Rec{ID: uint64(id), Pri: uint32(id % 2000), TTR: 60e9, Created: now - 3600e9, State: binlog.Ready}
		switch id % 4 {
		case 1:
			r.State, r.Delay, r.Deadline = binlog.Delayed, 86400e9, now+86400e9
		case 2:
			r.State, r.Buries = binlog.Buried, 1
		}
		require.NoError(t, w.Put("tube-"+strconv.Itoa(id%10), r, body))
	}
	files, err := w.Close()
	require.NoError(t, err)

	start, cpu0 := time.Now(), cpuTime()
	rep, err := ImportBinlog(dir, ImportOptions{Logger: zerolog.New(zerolog.NewTestWriter(t))})
	require.NoError(t, err)
	took, cpu := time.Since(start), cpuTime()-cpu0
	require.Equal(t, n, rep.Summary.Total.Total())

	start = time.Now()
	l, err := Open(dir, Options{SyncInterval: DefaultSyncInterval})
	require.NoError(t, err)
	q := jobs.New(jobs.Config{Journal: l})
	require.NoError(t, l.Replay(q))
	opened := time.Since(start)
	st := q.Stats()
	require.EqualValues(t, n, st.Ready+st.Delayed+st.Buried)
	require.NoError(t, l.Close())
	t.Logf("%d jobs in %d binlog files: import %v wall, %v CPU (user+system; the wall time counts waiting for a shared machine's cores), then open and replay %v; %+v",
		n, len(files), took.Round(time.Millisecond), cpu.Round(time.Millisecond), opened.Round(time.Millisecond), rep.Summary.Total)
}
