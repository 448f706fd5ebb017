package engine

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/engine/enginetest"
)

// tubeStatsDoc is the whole stats-tube reply for a tube holding n ready
// urgent jobs, paused once for pause seconds with left seconds to go, with
// using, watching and waiting clients.
func tubeStatsDoc(name string, n int, pause, left int, using, watching, waiting int) string {
	doc := "---\nname: " + name + "\n" +
		"current-jobs-urgent: " + strconv.Itoa(n) + "\n" +
		"current-jobs-ready: " + strconv.Itoa(n) + "\n" +
		"current-jobs-reserved: 0\ncurrent-jobs-delayed: 0\ncurrent-jobs-buried: 0\n" +
		"total-jobs: " + strconv.Itoa(n) + "\n" +
		"current-using: " + strconv.Itoa(using) + "\n" +
		"current-watching: " + strconv.Itoa(watching) + "\n" +
		"current-waiting: " + strconv.Itoa(waiting) + "\ncmd-delete: 0\ncmd-pause-tube: 1\n" +
		"pause: " + strconv.Itoa(pause) + "\n" +
		"pause-time-left: " + strconv.Itoa(left) + "\n"
	return "OK " + strconv.Itoa(len(doc)) + "\r\n" + doc + "\r\n"
}

func TestStatsJobDocument(t *testing.T) {
	m := startManual(t)
	c := dial(t, m.Server)
	c.Do("use jobs\r\nput 7 0 30 1\r\nx\r\nreserve-job 1\r\n", "USING jobs\r\nINSERTED 1\r\nRESERVED 1 1\r\nx\r\n")
	m.advance(3*time.Second + 500*time.Millisecond)
	doc := "---\nid: 1\ntube: jobs\nstate: reserved\npri: 7\nage: 3\ndelay: 0\nttr: 30\n" +
		"time-left: 26\nfile: 0\nreserves: 1\ntimeouts: 0\nreleases: 0\nburies: 0\nkicks: 0\n"
	c.Do("stats-job 1\r\n", "OK "+strconv.Itoa(len(doc))+"\r\n"+doc+"\r\n")
	c.Do("release 1 9 20\r\n", "RELEASED\r\n")
	doc = "---\nid: 1\ntube: jobs\nstate: delayed\npri: 9\nage: 3\ndelay: 20\nttr: 30\n" +
		"time-left: 20\nfile: 0\nreserves: 1\ntimeouts: 0\nreleases: 1\nburies: 0\nkicks: 0\n"
	c.Do("stats-job 1\r\n", "OK "+strconv.Itoa(len(doc))+"\r\n"+doc+"\r\n")
}

func TestStatsTubeDocument(t *testing.T) {
	m := startManual(t)
	c := dial(t, m.Server)
	c.Do("put 1 0 10 1\r\nx\r\npause-tube default 0\r\n", "INSERTED 1\r\nPAUSED\r\n")
	c.Do("stats-tube default\r\n", tubeStatsDoc("default", 1, 0, 0, 1, 1, 0))
}

// statsKeys is the reference's stats document, key by key, in order.
var statsKeys = strings.Fields(`current-jobs-urgent current-jobs-ready current-jobs-reserved
current-jobs-delayed current-jobs-buried cmd-put cmd-peek cmd-peek-ready cmd-peek-delayed
cmd-peek-buried cmd-reserve cmd-reserve-with-timeout cmd-delete cmd-release cmd-use cmd-watch
cmd-ignore cmd-bury cmd-kick cmd-touch cmd-stats cmd-stats-job cmd-stats-tube cmd-list-tubes
cmd-list-tube-used cmd-list-tubes-watched cmd-pause-tube job-timeouts total-jobs max-job-size
current-tubes current-connections current-producers current-workers current-waiting
total-connections pid version rusage-utime rusage-stime uptime binlog-oldest-index
binlog-current-index binlog-records-migrated binlog-records-written binlog-max-size draining id
hostname os platform`)

// yamlScalar: bare, or double-quoted where bare would break the YAML (codec.AppendYAMLString).
const yamlScalar = `^(".*"|[^" ].*[^ ]|[^" ])$`

var statsValue = map[string]*regexp.Regexp{
	"version":      regexp.MustCompile(`^"9\.9\.9"$`),
	"rusage-utime": regexp.MustCompile(`^\d+\.\d{6}$`),
	"rusage-stime": regexp.MustCompile(`^\d+\.\d{6}$`),
	"draining":     regexp.MustCompile(`^false$`),
	"id":           regexp.MustCompile(`^[0-9a-f]{16}$`),
	"hostname":     regexp.MustCompile(yamlScalar),
	"os":           regexp.MustCompile(yamlScalar),
	"platform":     regexp.MustCompile(yamlScalar),
}

func TestStatsDocument(t *testing.T) {
	binlog := func() BinlogStats { return BinlogStats{OldestIndex: 3, CurrentIndex: 5, MaxSize: 4096} }
	s := startBackend(t, Backend{BinlogStats: binlog}, func(c *Config) {
		c.Version = "9.9.9"
		c.MaxJobSize = 1000
	})
	c := dial(t, s)
	c.Do("put 0 0 10 1\r\nx\r\nreserve-job 1\r\nkick-job 1\r\n", "INSERTED 1\r\nRESERVED 1 1\r\nx\r\nNOT_FOUND\r\n")
	r := c.Ask("stats\r\n")
	pairs, ok := enginetest.ParseYAMLPairs(r.Body) // "---\n", then "key: value\n" lines
	require.True(t, ok, "%q", r.Body)
	var keys []string
	vals := map[string]string{}
	for _, p := range pairs {
		keys = append(keys, p.Key)
		vals[p.Key] = p.Value
	}
	assert.Equal(t, statsKeys, keys)
	for k, re := range statsValue {
		assert.Regexp(t, re, vals[k], k)
	}
	for k, want := range map[string]string{
		"cmd-put": "1", "cmd-stats": "1", "max-job-size": "1000", "current-jobs-reserved": "1",
		"current-producers": "1", "current-workers": "1", "binlog-oldest-index": "3",
		"binlog-current-index": "5", "binlog-max-size": "4096", "total-jobs": "1",
		"current-connections": "1", "current-tubes": "1", "pid": strconv.Itoa(s.proc.pid),
	} {
		assert.Equal(t, want, vals[k], k)
	}
	assert.Equal(t, uint64(1), s.Queue().Stats().Cmds[codec.OpReserveJob], "reserve-job is counted, not reported")
}

func TestKVTime(t *testing.T) {
	for _, tc := range []struct {
		sec, usec int64
		want      string
	}{{0, 0, "0.000000"}, {1, 2399, "1.002399"}, {12, 999999, "12.999999"}, {3, 100000, "3.100000"}} {
		var tv = timeval(tc.sec, tc.usec)
		assert.Equal(t, "k: "+tc.want+"\n", string(kvTime(nil, "k", tv)))
	}
}

// The free-form strings are quoted only where bare they would break the
// YAML (issue 19): Linux's os, which starts with '#', and a value holding
// ": " are quoted; an ordinary hostname stays bare, numbers included.
func TestStatsUnameQuoting(t *testing.T) {
	for _, tc := range []struct {
		host, os, platform string
		want               []string
	}{
		{"worker-7.example.com", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)", "x86_64", []string{
			"hostname: worker-7.example.com\n",
			"os: \"#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1 (2024-02-01)\"\n",
			"platform: x86_64\n"}},
		{"123", "build: 42 #7", "yes", []string{"hostname: 123\n", "os: \"build: 42 #7\"\n", "platform: yes\n"}},
		{"", "a #b", "arm:", []string{"hostname: \"\"\n", "os: \"a #b\"\n", "platform: \"arm:\"\n"}},
	} {
		s := &Server{proc: procInfo{version: "9.9.9", id: "0123456789abcdef", hostname: tc.host,
			osName: tc.os, platform: tc.platform, start: time.Now()}}
		doc := string(s.appendProcStats(nil, false))
		for _, w := range tc.want {
			assert.Contains(t, doc, w)
		}
		var m map[string]any
		require.NoError(t, yaml.Unmarshal([]byte("---\n"+doc), &m), doc)
		assert.Equal(t, tc.os, m["os"], doc)
	}
}
