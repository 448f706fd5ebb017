package wal

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal/binlog"
)

const importNow = int64(1_750_000_000e9)

// writeBinlog leaves a small beanstalkd binlog in dir: two files, jobs in
// every state, a delete, a compaction move and a short record of a job
// whose full record is gone (id 9: ids must continue above it).
func writeBinlog(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	rec := func(id uint64, st binlog.State, body string) binlog.Rec {
		return binlog.Rec{ID: id, Pri: uint32(id), TTR: 30e9, Created: importNow - 600e9, State: st, BodySize: int32(len(body)),
			Reserves: 1, Kicks: 2}
	}
	full := func(f []byte, tube string, r binlog.Rec, body string) []byte {
		return binlog.AppendFull(f, tube, &r, []byte(body))
	}
	f1 := binlog.AppendHeader(nil, binlog.Version7)
	f1 = full(f1, "default", rec(1, binlog.Ready, "one\r\n"), "one\r\n")
	b := rec(2, binlog.Buried, "two\r\n")
	b.Buries = 2
	f1 = full(f1, "emails", b, "two\r\n")
	d := rec(3, binlog.Delayed, "three\r\n")
	d.Delay, d.Deadline = 3600e9, importNow+3000e9
	f1 = full(f1, "emails", d, "three\r\n")
	past := rec(4, binlog.Delayed, "four\r\n")
	past.Delay, past.Deadline = 60e9, importNow-1e9
	f1 = full(f1, "default", past, "four\r\n")
	f1 = full(f1, "default", rec(5, binlog.Reserved, "five\r\n"), "five\r\n")
	f1 = full(f1, "default", rec(6, binlog.Ready, "six\r\n"), "six\r\n")
	f1 = binlog.AppendShort(f1, &binlog.Rec{ID: 6, State: binlog.Invalid})
	f1 = append(f1, make([]byte, 500)...) // the zero tail
	f2 := binlog.AppendHeader(nil, binlog.Version7)
	f2 = binlog.AppendShort(f2, &binlog.Rec{ID: 9, State: binlog.Ready})
	f2 = full(f2, "default", rec(1, binlog.Ready, "one\r\n"), "one\r\n")
	files := map[string][]byte{"binlog.3": f1, "binlog.4": f2}
	for name, data := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o400))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "lock"), nil, 0o600))
	return files
}

func importOptions(t *testing.T) ImportOptions {
	return ImportOptions{SegmentSize: 4096, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		now: func() time.Time { return time.Unix(0, importNow) }}
}

// openImported opens dir's log into a queue on a clock at importNow.
func openImported(t *testing.T, dir string) *jobs.Queue {
	t.Helper()
	l, err := Open(dir, testOptions(t))
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	q := jobs.New(jobs.Config{Journal: l, Clock: jobs.NewManualClock(importNow)})
	require.NoError(t, l.Replay(q))
	return q
}

func TestImportBinlog(t *testing.T) {
	dir := testDir(t)
	files := writeBinlog(t, dir)
	rep, err := ImportBinlog(dir, importOptions(t))
	require.NoError(t, err)
	require.True(t, rep.Imported)
	require.Equal(t, binlog.Counts{Ready: 3, Delayed: 1, Buried: 1}, rep.Summary.Total)
	require.Equal(t, binlog.Counts{Ready: 3}, rep.Summary.Tubes["default"])
	require.EqualValues(t, 9, rep.HighestID)
	require.Equal(t, filepath.Join(dir, importedName), rep.MovedTo)
	for name, data := range files {
		got, err := os.ReadFile(filepath.Join(rep.MovedTo, name))
		require.NoError(t, err)
		require.True(t, bytes.Equal(data, got), "%s moved untouched", name)
		require.NoFileExists(t, filepath.Join(dir, name))
	}

	q := openImported(t, dir)
	want := map[uint64]struct {
		tube   string
		state  jobs.State
		buries uint32
		body   string
	}{
		1: {"default", jobs.Ready, 0, "one"}, 2: {"emails", jobs.Buried, 3, "two"},
		3: {"emails", jobs.Delayed, 0, "three"}, 4: {"default", jobs.Ready, 0, "four"}, 5: {"default", jobs.Ready, 0, "five"},
	}
	for id, w := range want {
		st, err := q.StatsJob(id)
		require.NoError(t, err, "job %d", id)
		require.Equal(t, w.tube, st.Tube)
		require.Equal(t, w.state, st.State, "job %d", id)
		require.Equal(t, w.buries, st.Buries, "job %d: a buried job counts one more bury, as 1.12's replay counts it", id)
		require.EqualValues(t, id, st.Pri)
		require.Equal(t, 30*time.Second, st.TTR)
		require.Equal(t, 600*time.Second, st.Age, "created_at is kept")
		require.EqualValues(t, 1, st.Reserves)
		require.EqualValues(t, 2, st.Kicks)
		data, err := q.Peek(id)
		require.NoError(t, err)
		require.Equal(t, w.body, string(data.Body()))
	}
	st, _ := q.StatsJob(3)
	require.Equal(t, 3000*time.Second, st.TimeLeft, "the absolute deadline is kept")
	require.Equal(t, time.Hour, st.Delay)
	_, err = q.StatsJob(6)
	require.ErrorIs(t, err, jobs.ErrNotFound)
	require.Greater(t, q.NextID(), uint64(9), "ids continue above every id the binlog held")

	rep, err = ImportBinlog(dir, importOptions(t))
	require.NoError(t, err)
	require.False(t, rep.Imported, "nothing left to import")
}

func TestImportIsOneDurableStep(t *testing.T) {
	for _, step := range []importStep{stepBuilt, stepCommit, stepBinlogs} {
		dir := testDir(t)
		writeBinlog(t, dir)
		o := importOptions(t)
		o.crash = step
		_, err := ImportBinlog(dir, o)
		require.ErrorIs(t, err, errCrash)
		_, err = Open(dir, testOptions(t))
		require.ErrorIs(t, err, ErrForeignFiles, "step %d: Open refuses a half-done import", step)

		rep, err := ImportBinlog(dir, importOptions(t))
		require.NoError(t, err)
		require.True(t, rep.Imported)
		require.Equal(t, step != stepBuilt, rep.Finished, "step %d", step)
		require.NoDirExists(t, filepath.Join(dir, importTmp))
		require.NoDirExists(t, filepath.Join(dir, importDone))
		require.FileExists(t, filepath.Join(dir, importedName, "binlog.3"))
		q := openImported(t, dir)
		require.EqualValues(t, 5, q.Stats().Ready+q.Stats().Delayed+q.Stats().Buried, "step %d", step)
	}
}

func TestImportRefuses(t *testing.T) {
	t.Run("an unknown version", func(t *testing.T) {
		dir := testDir(t)
		writeBinlog(t, dir)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "binlog.5"), binlog.AppendHeader(nil, 8), 0o400))
		_, err := ImportBinlog(dir, importOptions(t))
		require.ErrorIs(t, err, ErrForeignFiles)
		require.ErrorContains(t, err, "binlog.5")
		require.ErrorContains(t, err, "unknown version: 8")
		require.FileExists(t, filepath.Join(dir, "binlog.3"), "nothing moved")
	})
	t.Run("stray files beside the binlog", func(t *testing.T) {
		dir := testDir(t)
		writeBinlog(t, dir)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o600))
		_, err := ImportBinlog(dir, importOptions(t))
		require.ErrorIs(t, err, ErrForeignFiles)
		require.ErrorContains(t, err, "notes.txt")
	})
	t.Run("a damaged file is read up to the damage", func(t *testing.T) {
		dir := testDir(t)
		files := writeBinlog(t, dir)
		f := files["binlog.4"]
		require.NoError(t, os.Chmod(filepath.Join(dir, "binlog.4"), 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "binlog.4"), f[:len(f)-3], 0o400))
		rep, err := ImportBinlog(dir, importOptions(t))
		require.NoError(t, err)
		require.Len(t, rep.Problems, 1)
		require.Contains(t, rep.Problems[0].String(), "binlog.4:88: unexpected EOF")
		require.Equal(t, 4, rep.Summary.Total.Total(), "the half-read job 1 is dropped, as 1.12 drops it")
	})
}

func TestOpenRefusesForeignFiles(t *testing.T) {
	h := newHarness(t, testOptions(t))
	h.open()
	_, _, err := h.q.put("default", 1, 0, "x")
	require.NoError(t, err)
	h.l.Close()
	h.l = nil
	for _, ok := range []string{"lost+found", "salvage-123", importedName, importedName + ".1"} {
		require.NoError(t, os.Mkdir(filepath.Join(h.dir, ok), 0o700))
	}
	h.open()
	h.l.Close()
	h.l = nil

	require.NoError(t, os.WriteFile(filepath.Join(h.dir, "binlog.1"), binlog.AppendHeader(nil, 7), 0o400))
	require.NoError(t, os.WriteFile(filepath.Join(h.dir, "stray"), nil, 0o600))
	_, err = Open(h.dir, testOptions(t))
	require.ErrorIs(t, err, ErrForeignFiles)
	require.ErrorContains(t, err, "stray")
	require.NoError(t, os.Remove(filepath.Join(h.dir, "stray")))
	_, err = Open(h.dir, testOptions(t))
	require.ErrorIs(t, err, ErrForeignFiles)
	require.ErrorContains(t, err, "binlog.1")
	require.ErrorContains(t, err, "beanstalkd ran here after stalkd")
	rep, err := ImportBinlog(h.dir, importOptions(t))
	require.NoError(t, err)
	require.False(t, rep.Imported, "never mixed into an existing log")
}
