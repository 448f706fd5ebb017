package loadgen

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serverStat reads one figure of the server's stats.
func serverStat(t *testing.T, addr, key string) int64 {
	t.Helper()
	r, err := dialT(t, addr).Do("stats")
	require.NoError(t, err)
	return yamlInt(r.Body, key)
}

func TestDelayedTubesAgainstReference(t *testing.T) {
	srv := startReference(t)
	cfg := testConfig(srv.Addr, ScenarioPut)
	cfg.Conns, cfg.Jobs, cfg.DelayedTubes = 2, 500, 300
	cfg.NoDrain = true // keep everything, to count it
	r := runOK(t, cfg)
	assert.Equal(t, int64(500), r.Ops)
	assert.Equal(t, 300, r.DelayedTubes)
	assert.Equal(t, int64(300), serverStat(t, srv.Addr, "current-jobs-delayed"))
	assert.GreaterOrEqual(t, serverStat(t, srv.Addr, "current-tubes"), int64(300+1))
	var out bytes.Buffer
	require.NoError(t, WriteTable(&out, r))
	assert.Contains(t, out.String(), "beside 300 tubes holding a delayed job each")

	// Without NoDrain the run cleans up after itself: its puts and the
	// delayed jobs are gone.
	fresh := startReference(t)
	cfg.Addr, cfg.NoDrain = fresh.Addr, false
	r = runOK(t, cfg)
	assert.Zero(t, r.Left)
	assert.Zero(t, serverStat(t, fresh.Addr, "current-jobs-delayed"))
	assert.Zero(t, serverStat(t, fresh.Addr, "current-jobs-ready"))
	assert.Equal(t, int64(800), serverStat(t, fresh.Addr, "cmd-put"))
}

func TestWatchAllAgainstReference(t *testing.T) {
	srv := startReference(t)
	cfg := testConfig(srv.Addr, ScenarioReserve)
	cfg.Conns, cfg.Tubes, cfg.WatchAll, cfg.Jobs = 2, 40, true, 2000
	r := runOK(t, cfg)
	assert.Equal(t, int64(2000), r.Ops, "two consumers watching all 40 tubes drain every job")
	assert.Zero(t, r.Left)
	assert.Equal(t, []string{"bench.3"}, Config{Tubes: 40}.consumerTubes(3))
	all := Config{Tubes: 40, WatchAll: true}.consumerTubes(3)
	assert.Len(t, all, 40)
	assert.Equal(t, "bench.39", all[39])
}

func TestMemReturnAgainstReference(t *testing.T) {
	srv := startReference(t)
	cfg := testConfig(srv.Addr, ScenarioMemReturn)
	cfg.Jobs, cfg.PID, cfg.Settle = 20_000, srv.PID, 50*time.Millisecond
	r := runOK(t, cfg)
	assert.Equal(t, int64(20_000), r.Ops)
	require.Positive(t, r.RSSBefore)
	assert.Greater(t, r.RSSAfter, r.RSSBefore, "20k jobs take memory")
	assert.Positive(t, r.RSSDrained)
	assert.Positive(t, r.RSSSettled)
	assert.Equal(t, 0.05, r.SettleSec)
	assert.Zero(t, serverStat(t, srv.Addr, "current-jobs-ready"), "everything was deleted")
	assert.Equal(t, "rss_settled", Metric(cfg))
	var out bytes.Buffer
	require.NoError(t, WriteTable(&out, r))
	assert.Contains(t, out.String(), "all deleted")

	cfg.PID = 0
	_, err := Run(cfg)
	assert.ErrorContains(t, err, "mem-return needs the server's pid")
}

func TestStartServerFreshDir(t *testing.T) {
	if _, err := exec.LookPath("beanstalkd"); err != nil {
		t.Skip("beanstalkd (the reference server) is not on PATH")
	}
	// beanstalkd refuses to start when -b names a missing directory.
	srv, err := StartServer("beanstalkd -l 127.0.0.1 -p {port} -b {dir}", nil)
	require.NoError(t, err)
	require.NotEmpty(t, srv.Dir)
	assert.True(t, strings.HasPrefix(srv.Dir, os.TempDir()))
	_, err = os.Stat(srv.Dir)
	require.NoError(t, err)
	srv.Stop()
	_, err = os.Stat(srv.Dir)
	assert.True(t, os.IsNotExist(err), "Stop removes the directory")
}
