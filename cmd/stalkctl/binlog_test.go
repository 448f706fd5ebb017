package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/embed"
	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/engine/node"
	"github.com/stalkd/stalkd/wal"
)

// referenceJobs restarts beanstalkd 1.12 on a copy of dir and returns every
// job it reports, and its stats.
func referenceJobs(t *testing.T, dir string, maxID uint64) (map[uint64]enginetest.JobView, map[string]string) {
	t.Helper()
	cp := t.TempDir()
	enginetest.CopyDir(t, dir, cp)
	ref := enginetest.Reference(t, append([]string{"-b", cp}, enginetest.ReferenceBinlogArgs...)...)
	return enginetest.JobsByID(t, ref.Addr(), maxID), enginetest.Dial(t, ref.Addr()).Stats()
}

// dirBytes is every file of dir with its contents.
func dirBytes(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		out[e.Name()] = string(data)
	}
	return out
}

// TestBinlogInspect: inspect counts what beanstalkd itself reports after
// restarting on the directory, per state, and changes nothing.
func TestBinlogInspect(t *testing.T) {
	dir := t.TempDir()
	maxID := enginetest.WriteReferenceBinlog(t, dir)
	before := dirBytes(t, dir)
	_, stats := referenceJobs(t, dir, maxID)

	out := mustCtl(t, "127.0.0.1:1", "binlog", "inspect", dir)
	require.Contains(t, out, "jobs: "+strconv.Itoa(atoi(stats["current-jobs-ready"])+atoi(stats["current-jobs-delayed"])+atoi(stats["current-jobs-buried"])))
	require.Contains(t, out, "ready "+stats["current-jobs-ready"]+", delayed "+stats["current-jobs-delayed"]+", buried "+stats["current-jobs-buried"])
	require.Contains(t, out, enginetest.LongTube)
	require.Contains(t, out, "stalkd's ids continue at "+strconv.FormatUint(maxID+1, 10))
	require.Contains(t, out, "nothing was changed")

	var doc struct {
		Jobs   map[string]int
		Tubes  map[string]map[string]int
		NextID uint64 `json:"next_id"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustCtl(t, "127.0.0.1:1", "--json", "binlog", "inspect", dir)), &doc))
	require.Equal(t, atoi(stats["current-jobs-buried"]), doc.Jobs["buried"])
	require.Len(t, doc.Tubes, 3)
	require.Equal(t, maxID+1, doc.NextID)
	require.Equal(t, before, dirBytes(t, dir), "inspect changes nothing")

	r := ctl(t, "127.0.0.1:1", "", "binlog", "export")
	require.Equal(t, exitUsage, r.code, r.stderr)
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// TestBinlogRoundTrip is the way back: beanstalkd's binlog, imported by
// stalkd, exported again (from the running server over the protocol, and
// from its stopped -b directory), loads into beanstalkd 1.12 with every
// job as the first beanstalkd showed it: id, tube, priority, state,
// remaining delay, body and counters.
func TestBinlogRoundTrip(t *testing.T) {
	dir := t.TempDir()
	maxID := enginetest.WriteReferenceBinlog(t, dir)
	want, _ := referenceJobs(t, dir, maxID)

	q, err := embed.Open(embed.Options{Dir: dir, MaxJobSize: 70000})
	require.NoError(t, err)
	n, err := node.Start(context.Background(), node.Config{Queue: q, Engine: engine.Config{Addr: "127.0.0.1:0"}})
	require.NoError(t, err)
	addr := n.Addr().String()
	enginetest.RequireSameJobs(t, want, enginetest.JobsByID(t, addr, maxID), 3, "file")

	// Over the protocol, a tube whose name leaves no room for list-jobs'
	// arguments in the 224-byte line is refused, naming --from-dir.
	live := t.TempDir()
	r := ctl(t, addr, "", "binlog", "export", "--to", live)
	require.Equal(t, exitFailure, r.code)
	require.Contains(t, r.stderr, "--from-dir")
	// Without it, every job goes over.
	mustCtl(t, addr, "clear", enginetest.LongTube)
	short := map[uint64]enginetest.JobView{}
	for id, j := range want {
		if j.Stats["tube"] != enginetest.LongTube {
			short[id] = j
		}
	}
	out := mustCtl(t, addr, "binlog", "export", "--to", live)
	require.Contains(t, out, "wrote "+strconv.Itoa(len(short))+" jobs")
	got, _ := referenceJobs(t, live, maxID)
	enginetest.RequireSameJobs(t, short, got, 3, "file")

	require.NoError(t, q.Close())
	dir = t.TempDir() // the directory as it was before the clear: import again
	maxID = enginetest.WriteReferenceBinlog(t, dir)
	want, _ = referenceJobs(t, dir, maxID)
	_, err = wal.ImportBinlog(dir, wal.ImportOptions{})
	require.NoError(t, err)
	stopped := filepath.Join(t.TempDir(), "new") // created by the export
	out = mustCtl(t, "127.0.0.1:1", "binlog", "export", "--from-dir", dir, "--to", stopped, "--file-size", "65536")
	require.Contains(t, out, "-z ")
	files, _ := filepath.Glob(filepath.Join(stopped, "binlog.*"))
	require.Greater(t, len(files), 1, "--file-size splits the files")
	got, _ = referenceJobs(t, stopped, maxID+100)
	enginetest.RequireSameJobs(t, want, got, 1, "file")

	r = ctl(t, "127.0.0.1:1", "", "binlog", "export", "--from-dir", dir, "--to", dir)
	require.Equal(t, exitFailure, r.code)
	require.Contains(t, r.stderr, "holds a log of stalkd's")
	_, err = wal.HoldsLog(dir)
	require.NoError(t, err)
}
