package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// fillSource puts jobs in every state into a beanstalk server: per tube,
// ready ones (priority and TTR varied), delayed ones and buried ones (a
// bury priority of their own), and one job a worker keeps reserved (the
// returned connection holds it).
func fillSource(t *testing.T, addr string, tubes []string, per int) (*enginetest.Conn, map[string]string) {
	t.Helper()
	c := enginetest.Dial(t, addr)
	bodies := map[string]string{}
	for _, tube := range tubes {
		c.Do("use "+tube+"\r\n", "USING "+tube+"\r\n")
		for i := range per {
			body := fmt.Sprintf("%s-%d-%s", tube, i, strings.Repeat("b", i*13))
			delay := 0
			if i%3 == 1 {
				delay = 3600 + i
			}
			r := c.Ask(fmt.Sprintf("put %d %d %d %d\r\n%s\r\n", 100+i, delay, 20+i, len(body), body))
			require.True(t, strings.HasPrefix(r.Head, "INSERTED "), r.String())
			bodies[body] = tube
		}
		c.Do("watch "+tube+"\r\n", "WATCHING 2\r\n")
		c.Do("ignore default\r\n", "WATCHING 1\r\n")
		for i := 0; i < per/3; i++ {
			r := c.Ask("reserve-with-timeout 0\r\n")
			id := strings.Fields(r.Head)[1]
			c.Do("bury "+id+" 7\r\n", "BURIED\r\n")
		}
		c.Do("watch default\r\n", "WATCHING 2\r\n")
		c.Do("ignore "+tube+"\r\n", "WATCHING 1\r\n")
	}
	w := enginetest.Dial(t, addr)
	w.Do("watch "+tubes[0]+"\r\n", "WATCHING 2\r\n")
	r := w.Ask("reserve-with-timeout 0\r\n")
	require.True(t, strings.HasPrefix(r.Head, "RESERVED "), r.String())
	return w, bodies
}

// TestMigrateFromReference moves every job of a running beanstalkd 1.12
// into stalkd over the protocol: states, priorities, TTRs and remaining
// delays kept, the old -> new map printed and written, the source left
// with only the job a worker holds; then a second run picks up new jobs.
func TestMigrateFromReference(t *testing.T) {
	src := enginetest.Reference(t).Addr()
	dst := startServer(t)
	tubes := []string{"emails", "reports"}
	_, bodies := fillSource(t, src, tubes, 12)
	s := enginetest.Dial(t, src)
	before := s.Stats()
	n := atoi(before["current-jobs-ready"]) + atoi(before["current-jobs-delayed"]) + atoi(before["current-jobs-buried"])

	dir := t.TempDir()
	state, mapFile := filepath.Join(dir, "state.jsonl"), filepath.Join(dir, "map.json")
	out := mustCtl(t, dst, "migrate", "--from", src, "--state", state, "--map", mapFile)
	require.Contains(t, out, fmt.Sprintf("moved %d jobs in this run, %d in all", n, n))
	require.Contains(t, out, "1 jobs are reserved by workers at the source and were not moved")

	var m []moved
	data, err := os.ReadFile(mapFile)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &m))
	require.Len(t, m, n)
	d := enginetest.Dial(t, dst)
	for _, mv := range m {
		require.Contains(t, out, fmt.Sprintf("%d -> %d\t%s\t%s", mv.Old, mv.New, mv.State, mv.Tube))
		st := d.Stats(fmt.Sprintf("stats-job %d", mv.New))
		require.Equal(t, mv.State, st["state"], "job %d -> %d", mv.Old, mv.New)
		require.Equal(t, mv.Tube, st["tube"])
		job := d.Ask(fmt.Sprintf("peek %d\r\n", mv.New))
		require.Equal(t, mv.Tube, bodies[string(job.Body)], "job %d's body", mv.New)
		var i int
		_, err := fmt.Sscanf(strings.TrimPrefix(string(job.Body), mv.Tube+"-"), "%d-", &i)
		require.NoError(t, err)
		require.Equal(t, fmt.Sprint(20+i), st["ttr"])
		switch mv.State {
		case "buried":
			require.Equal(t, "7", st["pri"])
		case "delayed":
			require.Equal(t, fmt.Sprint(100+i), st["pri"])
			left := atoi(st["time-left"])
			require.InDelta(t, 3600+i, left, 3, "remaining delay kept")
		default:
			require.Equal(t, fmt.Sprint(100+i), st["pri"])
		}
	}
	after := s.Stats()
	for _, k := range []string{"current-jobs-ready", "current-jobs-delayed", "current-jobs-buried"} {
		require.Equal(t, "0", after[k], k)
	}
	require.Equal(t, "1", after["current-jobs-reserved"])
	dstStats := d.Stats()
	require.Equal(t, n, atoi(dstStats["current-jobs-ready"])+atoi(dstStats["current-jobs-delayed"])+atoi(dstStats["current-jobs-buried"]))

	// Resumable: the state file holds the map; a second run moves what is new.
	s.Do("use late\r\n", "USING late\r\n")
	s.Ask("put 1 0 5 4\r\nlate\r\n")
	out = mustCtl(t, dst, "migrate", "--from", src, "--state", state)
	require.Contains(t, out, fmt.Sprintf("moved 1 jobs in this run, %d in all", n+1))
}

// TestMigrateResumesAfterAKill: a run killed after copying a job but
// before deleting it from the source (the state file's last line records
// the copy), or before recording the copy at all (its last line says the
// job was in flight), copies nothing twice and loses nothing.
func TestMigrateResumesAfterAKill(t *testing.T) {
	for _, recorded := range []bool{true, false} {
		src := enginetest.Reference(t).Addr()
		dst := startServer(t)
		s, d := enginetest.Dial(t, src), enginetest.Dial(t, dst)
		s.Do("use q\r\n", "USING q\r\n")
		d.Do("use q\r\n", "USING q\r\n")
		s.Do("put 5 0 9 3\r\nold\r\n", "INSERTED 1\r\n")
		s.Do("put 5 0 9 5\r\nother\r\n", "INSERTED 2\r\n")
		copyID := strings.TrimPrefix(d.Ask("put 5 0 9 3\r\nold\r\n").Head, "INSERTED ") // the copy the killed run made
		sum := fmt.Sprintf("%x", sha256.Sum256([]byte("old")))
		line := fmt.Sprintf(`{"old":1,"new":0,"tube":"q","state":"ready","sha256":%q}`+"\n", sum)
		if recorded {
			line += fmt.Sprintf(`{"old":1,"new":%s,"tube":"q","state":"ready","sha256":%q}`+"\n", copyID, sum)
		}
		state := filepath.Join(t.TempDir(), "state.jsonl")
		require.NoError(t, os.WriteFile(state, []byte(line), 0o644))

		out := mustCtl(t, dst, "migrate", "--from", src, "--state", state)
		require.Contains(t, out, "moved 1 jobs in this run, 2 in all", "recorded=%v", recorded)
		require.Contains(t, out, "1 -> "+copyID+"\t")
		require.Equal(t, "2", d.Stats()["current-jobs-ready"], "no job copied twice")
		s.Do("peek 1\r\n", "NOT_FOUND\r\n")
		s.Do("peek 2\r\n", "NOT_FOUND\r\n")
	}
}
