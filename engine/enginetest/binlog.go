package enginetest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// LongTube is a tube name of the longest length the protocol allows (200
// bytes), used by the binlog scenario.
var LongTube = strings.Repeat("t", 200)

// ReferenceBinlogArgs are the flags WriteReferenceBinlog runs beanstalkd
// with besides -b: small files (so the jobs spread over several and
// compaction moves some) and a job size limit that admits a 64 KiB body.
// Restart the reference with the same flags to read the directory back.
var ReferenceBinlogArgs = []string{"-s", "65536", "-z", "70000"}

// WriteReferenceBinlog runs beanstalkd 1.12 with -b dir (skipping the test
// where it is not installed) and leaves jobs in every state in its binlog:
// ready, delayed (put with a delay, and released with one), buried (some
// kicked back), reserved at the end (they come back ready), deleted ones,
// releases without delay and touches (which 1.12 does not log), a 64 KiB
// body and a 200-byte tube name, over several files with compaction having
// moved jobs forward. Then it kills the server with SIGKILL, as a crash
// would, and returns the highest job id handed out. Every delay is an hour
// or more, so the state read back does not depend on when.
func WriteReferenceBinlog(t testing.TB, dir string) (maxID uint64) {
	t.Helper()
	p := Reference(t, append([]string{"-b", dir}, ReferenceBinlogArgs...)...)
	c := Dial(t, p.Addr())
	tubes := []string{"default", "emails", LongTube}
	put := func(tube string, pri, delay, ttr int, body string) uint64 {
		c.Do("use "+tube+"\r\n", "USING "+tube+"\r\n")
		r := c.Ask(fmt.Sprintf("put %d %d %d %d\r\n%s\r\n", pri, delay, ttr, len(body), body))
		id, ok := strings.CutPrefix(r.Head, "INSERTED ")
		require.True(t, ok, "put: %s", r)
		n, err := strconv.ParseUint(id, 10, 64)
		require.NoError(t, err)
		maxID = max(maxID, n)
		return n
	}
	for i := 1; i <= 300; i++ {
		delay := 0
		if i%4 == 0 {
			delay = 3600 + i
		}
		put(tubes[i%3], (i%5)*500, delay, 30+i%60, fmt.Sprintf("job-%d-%s", i, strings.Repeat("x", i*7%900)))
	}
	big := put("emails", 100, 0, 120, strings.Repeat("0123456789abcdef", 4096)) // 64 KiB
	for _, tb := range tubes[1:] {
		c.Do("watch "+tb+"\r\n", fmt.Sprintf("WATCHING %d\r\n", watchCount(tubes, tb)))
	}
	for k := 0; k < 150; k++ {
		r := c.Ask("reserve-with-timeout 0\r\n")
		require.True(t, strings.HasPrefix(r.Head, "RESERVED "), "reserve: %s", r)
		id := strings.Fields(r.Head)[1]
		switch k % 6 {
		case 0:
			c.Do(fmt.Sprintf("bury %s %d\r\n", id, k%7), "BURIED\r\n")
		case 1:
			c.Do(fmt.Sprintf("release %s 3 %d\r\n", id, 7200+k), "RELEASED\r\n")
		case 2:
			c.Do("delete "+id+"\r\n", "DELETED\r\n")
		case 3:
			c.Do("touch "+id+"\r\n", "TOUCHED\r\n")
			c.Do(fmt.Sprintf("release %s %d 0\r\n", id, 2000+k), "RELEASED\r\n") // not logged: the old priority comes back
		case 4:
			c.Do(fmt.Sprintf("bury %s 9\r\n", id), "BURIED\r\n")
			if k%4 == 0 {
				c.Do("kick-job "+id+"\r\n", "KICKED\r\n")
			}
		case 5: // stays reserved until the kill
		}
	}
	c.Do("use emails\r\n", "USING emails\r\n")
	c.Ask("kick 3\r\n")
	// Delete a third of the jobs and put new ones until compaction has moved
	// some: the head files then hold few live jobs.
	for id := uint64(1); id <= maxID; id += 3 {
		if id != big {
			c.Ask(fmt.Sprintf("delete %d\r\n", id)) // NOT_FOUND for the deleted and the reserved
		}
	}
	for i := 0; c.Stat("binlog-records-migrated") == 0; i++ {
		require.Less(t, i, 100, "compaction never moved a job")
		for range 20 {
			id := put("default", 7, 0, 60, strings.Repeat("y", 1000))
			c.Do(fmt.Sprintf("delete %d\r\n", id), "DELETED\r\n")
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "binlog.*"))
	require.GreaterOrEqual(t, len(files), 3, "the jobs should span several files")
	p.Kill()
	return maxID
}

func watchCount(tubes []string, tb string) int {
	for i, s := range tubes {
		if s == tb {
			return i + 1
		}
	}
	return 0
}

// JobView is what a server reports about one job: its stats-job document
// and its body (peek's, without the CRLF).
type JobView struct {
	Stats map[string]string
	Body  []byte
}

// JobsByID asks the server at addr for stats-job and peek of every id from
// 1 to maxID and returns the jobs it has.
func JobsByID(t testing.TB, addr string, maxID uint64) map[uint64]JobView {
	t.Helper()
	c := Dial(t, addr)
	out := make(map[uint64]JobView)
	for id := uint64(1); id <= maxID; id++ {
		r := c.Ask(fmt.Sprintf("stats-job %d\r\n", id))
		if r.Head == "NOT_FOUND" {
			continue
		}
		require.True(t, r.HasBody, "stats-job %d: %s", id, r)
		m, ok := ParseYAML(r.Body)
		require.True(t, ok)
		p := c.Ask(fmt.Sprintf("peek %d\r\n", id))
		require.True(t, p.HasBody, "peek %d: %s", id, p)
		out[id] = JobView{Stats: m, Body: p.Body}
	}
	return out
}

// RequireSameJobs fails unless got holds exactly the jobs of want, each
// with the same body and stats-job, except: age and time-left may differ
// by slack seconds (they were read at different times), and the keys in
// ignore are not compared ("file", whose numbers differ between servers).
func RequireSameJobs(t testing.TB, want, got map[uint64]JobView, slack int64, ignore ...string) {
	t.Helper()
	require.Equal(t, len(want), len(got), "number of jobs")
	skip := map[string]bool{}
	for _, k := range ignore {
		skip[k] = true
	}
	for id, w := range want {
		g, ok := got[id]
		require.True(t, ok, "job %d missing", id)
		require.Equal(t, string(w.Body), string(g.Body), "job %d body", id)
		for k, wv := range w.Stats {
			if skip[k] {
				continue
			}
			gv, ok := g.Stats[k]
			require.True(t, ok, "job %d: no %s", id, k)
			if k == "age" || k == "time-left" {
				a, _ := strconv.ParseInt(wv, 10, 64)
				b, _ := strconv.ParseInt(gv, 10, 64)
				require.InDelta(t, a, b, float64(slack), "job %d %s", id, k)
				continue
			}
			require.Equal(t, wv, gv, "job %d %s", id, k)
		}
	}
}

// CopyDir copies the regular files of src into dst (created), keeping
// their modes: a binlog directory to restart a server on without touching
// the original.
func CopyDir(t testing.TB, src, dst string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dst, 0o750))
	ents, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		info, err := e.Info()
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dst, e.Name()), data, info.Mode().Perm()|0o200))
		require.NoError(t, os.Chmod(filepath.Join(dst, e.Name()), info.Mode().Perm()))
	}
}
