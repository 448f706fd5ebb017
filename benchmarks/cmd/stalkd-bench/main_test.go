package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stalkd/stalkd/benchmarks/loadgen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets the test binary stand in for stalkd-bench when a run starts
// its ceiling echo server as a child process (os.Executable is this binary).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "serve-echo" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestParseArgs(t *testing.T) {
	var errs bytes.Buffer
	o, err := parseArgs([]string{"put", "-a", "h:1", "--conns", "10", "-d", "64", "--quiet", "-n", "5"}, &errs)
	require.NoError(t, err)
	assert.Equal(t, "put", o.scenario)
	assert.Equal(t, "h:1", o.cfg.Addr)
	assert.Equal(t, 10, o.cfg.Conns)
	assert.Equal(t, 64, o.cfg.Pipeline)
	assert.Equal(t, int64(5), o.cfg.Jobs)
	assert.Nil(t, o.cfg.Progress)
	assert.True(t, o.ceiling)

	o, err = parseArgs([]string{"--batch", "16", "reserve", "--no-ceiling"}, &errs)
	require.NoError(t, err)
	assert.Equal(t, "reserve", o.scenario, "flags may come before the scenario")
	assert.Equal(t, 16, o.cfg.Batch)
	assert.False(t, o.ceiling)

	_, err = parseArgs([]string{"put", "--server-a", "x {port}"}, &errs)
	assert.ErrorContains(t, err, "needs a B")
	_, err = parseArgs(nil, &errs)
	assert.ErrorContains(t, err, "no scenario")
}

func TestRunAgainstEchoJSON(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"put", "-a", "echo", "-c", "2", "-d", "8", "-n", "500", "--quiet", "--json"}, &out, &errs)
	require.Equal(t, 0, code, errs.String())
	var got struct {
		Results []struct {
			Target string `json:"target"`
			Ops    int64  `json:"ops"`
			Errors int64  `json:"errors"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	require.Len(t, got.Results, 2, "the run and its ceiling")
	assert.Equal(t, "echo", got.Results[0].Target)
	assert.Equal(t, "ceiling (echo process)", got.Results[1].Target)
	for _, r := range got.Results {
		assert.Equal(t, int64(500), r.Ops)
		assert.Zero(t, r.Errors)
	}
}

func TestRunCompareTable(t *testing.T) {
	a, err := loadgen.StartEcho("127.0.0.1:0", 100)
	require.NoError(t, err)
	defer a.Close()
	b, err := loadgen.StartEcho("127.0.0.1:0", 100)
	require.NoError(t, err)
	defer b.Close()
	var out, errs bytes.Buffer
	code := run([]string{"put", "-a", a.Addr(), "--compare", b.Addr(), "-n", "100", "--rounds", "2",
		"--quiet", "--no-ceiling", "--no-drain"}, &out, &errs)
	require.Equal(t, 0, code, errs.String())
	assert.Contains(t, out.String(), "median A/B ops_per_sec ratio over 2 rounds")
	assert.Contains(t, out.String(), "A "+a.Addr())
	assert.Contains(t, out.String(), "B "+b.Addr())
}

func TestMatrixCommandLines(t *testing.T) {
	lines := map[string]string{}
	for _, c := range matrix(5*time.Second, false) {
		lines[c.name] = commandLine(c.cfg)
	}
	assert.Equal(t, "stalkd-bench put -c 10 -d 64 -s 100 --warmup 1s --duration 5s", lines["put-pipelined"])
	assert.Equal(t, "stalkd-bench reserve -c 10 -b 16 -s 100 -n 1000000", lines["reserve-batched"])
	assert.Equal(t, "stalkd-bench e2e -p 50 -c 50 -s 100 --rate 5000 --warmup 1s --duration 5s", lines["e2e-50x50-paced"])
	assert.Equal(t, "stalkd-bench conns --idle 10000", lines["conns-10k-idle"])
	assert.Equal(t, "stalkd-bench put -c 1 -s 100 --warmup 1s --duration 5s", lines["put-1conn-f0"])
	assert.Equal(t, "stalkd-bench reserve -c 1 -t 1000 --watch-all -s 100 -n 100000", lines["reserve-watch-1000"])
	assert.Equal(t, "stalkd-bench put -c 10 --delayed-tubes 10000 -s 100 --warmup 1s --duration 5s", lines["put-10k-tubes"])
	assert.Equal(t, "stalkd-bench connect -c 10 -s 100 --warmup 1s --duration 5s", lines["connect-10conns"])
	assert.Equal(t, "stalkd-bench reserve -c 1000 -s 100 -n 300000", lines["reserve-1000conns"])
	assert.Len(t, lines, 23+19, "every case without server flags has a twin with the log on")
	assert.NotContains(t, lines, "mem-return-1M", "heavy cases only with --heavy")
	for _, c := range matrix(5*time.Second, false) {
		if strings.HasSuffix(c.name, "-b") {
			assert.Equal(t, "-b {dir}", c.serverArgs, c.name)
			assert.Equal(t, lines[strings.TrimSuffix(c.name, "-b")], commandLine(c.cfg), c.name)
		}
	}

	heavy := map[string]string{}
	for _, c := range matrix(5*time.Second, true) {
		heavy[c.name] = commandLine(c.cfg)
	}
	assert.Len(t, heavy, 26+22)
	assert.Equal(t, "stalkd-bench mem-return -s 100 -n 1000000 --settle 30s", heavy["mem-return-1M"])
	assert.Equal(t, "stalkd-bench reserve -c 10 --delayed-tubes 100000 -s 100 -n 20000", heavy["reserve-100k-tubes"])
}

func TestMatrixServerArgs(t *testing.T) {
	o := &options{server: "stalkd -p {port}"}
	require.True(t, o.withServerArgs("-b {dir} -f0"))
	assert.Equal(t, "stalkd -p {port} -b {dir} -f0", o.server)
	o = &options{serverA: "a {port}", serverB: "b {port}"}
	require.True(t, o.withServerArgs("-F"))
	assert.Equal(t, []string{"a {port} -F", "b {port} -F"}, []string{o.serverA, o.serverB})
	assert.False(t, (&options{serverA: "a {port}", compare: "127.0.0.1:1"}).withServerArgs("-F"),
		"a running B cannot take flags")
	assert.False(t, (&options{}).withServerArgs("-F"))

	var out, errs bytes.Buffer
	code := run([]string{"all", "-a", "echo", "--only", "put-1conn-f0", "--quiet", "--no-ceiling"}, &out, &errs)
	require.Equal(t, 0, code, errs.String())
	assert.Contains(t, out.String(), "## put-1conn-f0\nskipped: needs server templates")
}

// TestDurableCaseAgainstReference runs the -b -f0 case against the
// reference: {dir} becomes a fresh journal directory (beanstalkd refuses
// to start with -b naming a missing one).
func TestDurableCaseAgainstReference(t *testing.T) {
	if _, err := exec.LookPath("beanstalkd"); err != nil {
		t.Skip("beanstalkd (the reference server) is not on PATH")
	}
	var out, errs bytes.Buffer
	code := run([]string{"all", "--server", "beanstalkd -l 127.0.0.1 -p {port}", "--only", "put-1conn-f0",
		"--duration", "300ms", "--quiet", "--no-ceiling", "--json"}, &out, &errs)
	require.Equal(t, 0, code, errs.String())
	var got map[string]struct {
		Results []loadgen.Result `json:"results"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
	r := got["put-1conn-f0"].Results
	require.Len(t, r, 1)
	assert.Greater(t, r[0].Ops, int64(0))
	assert.Zero(t, r[0].Errors)
}

func TestAllAgainstEcho(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"all", "-a", "echo", "--only", "reserve-batched", "-n", "3000", "--quiet", "--no-ceiling"},
		&out, &errs)
	require.Equal(t, 0, code, errs.String())
	assert.Contains(t, out.String(), "## reserve-batched\n$ stalkd-bench reserve -c 10 -b 16 -s 100 -n 3000 -a echo")
	assert.Contains(t, out.String(), " 3000 ", "the jobs reserved and deleted")

	_, err := parseArgs([]string{"compare-all"}, &errs)
	assert.ErrorContains(t, err, "two targets")
}

func TestParseTLSAndPIDFlags(t *testing.T) {
	var errs bytes.Buffer
	o, err := parseArgs([]string{"put", "--tls", "--tls-insecure", "--tls-server-name", "q.example", "--server-pid", "42",
		"--compare", "127.0.0.1:2", "--compare-pid", "43"}, &errs)
	require.NoError(t, err)
	require.NotNil(t, o.cfg.TLS)
	assert.True(t, o.cfg.TLS.InsecureSkipVerify)
	assert.Equal(t, "q.example", o.cfg.TLS.ServerName)
	assert.Equal(t, 42, o.cfg.PID)
	assert.Equal(t, 43, o.comparePID)

	o, err = parseArgs([]string{"put"}, &errs)
	require.NoError(t, err)
	assert.Nil(t, o.cfg.TLS, "plain TCP unless --tls")
	_, err = parseArgs([]string{"put", "--tls-insecure"}, &errs)
	assert.ErrorContains(t, err, "without --tls")
	_, err = parseArgs([]string{"put", "--tls", "--tls-cert", "c.pem"}, &errs)
	assert.ErrorContains(t, err, "certificate and a key")
}
