package loadgen

import (
	"bufio"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runOK runs cfg and checks it finished without errors.
func runOK(t *testing.T, cfg Config) Result {
	t.Helper()
	r, err := Run(cfg)
	require.NoError(t, err)
	require.NoError(t, r.Err())
	return r
}

func TestPutAgainstReference(t *testing.T) {
	srv := startReference(t)
	for _, c := range []struct {
		name                string
		conns, depth, tubes int
		jobs                int64
	}{{"unpipelined", 2, 1, 1, 300}, {"pipelined", 2, 16, 3, 1000}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := testConfig(srv.Addr, ScenarioPut)
			cfg.Conns, cfg.Pipeline, cfg.Tubes, cfg.Jobs = c.conns, c.depth, c.tubes, c.jobs
			r := runOK(t, cfg)
			assert.Equal(t, c.jobs, r.Ops)
			assert.Zero(t, r.Left, "the run deletes what it put")
			assert.Greater(t, r.OpsPerSec, 0.0)
			assert.Greater(t, r.Latency.P50, 0.0)
			assert.GreaterOrEqual(t, r.Latency.P999, r.Latency.P99)
		})
	}
}

func TestPutNoDrainLeavesJobs(t *testing.T) {
	srv := startReference(t)
	cfg := testConfig(srv.Addr, ScenarioPut)
	cfg.Jobs, cfg.Pipeline, cfg.NoDrain = 50, 8, true
	runOK(t, cfg)
	n, err := countJobs(cfg.WithDefaults())
	require.NoError(t, err)
	assert.Equal(t, int64(50), n)
}

func TestReserveAgainstReference(t *testing.T) {
	srv := startReference(t)
	for _, c := range []struct {
		name         string
		conns, batch int
		size         int
	}{{"unbatched", 2, 1, 100}, {"batched", 3, 8, 100}, {"64KiB", 2, 4, 65536}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := testConfig(srv.Addr, ScenarioReserve)
			cfg.Conns, cfg.Batch, cfg.Size, cfg.Tubes, cfg.Jobs = c.conns, c.batch, c.size, 2, 60
			r := runOK(t, cfg)
			assert.Equal(t, int64(60), r.Ops, "every preloaded job reserved and deleted once")
			assert.Zero(t, r.Left)
			n, err := countJobs(cfg.WithDefaults())
			require.NoError(t, err)
			assert.Zero(t, n, "the queue is empty")
		})
	}
}

func TestE2EAgainstReference(t *testing.T) {
	srv := startReference(t)
	cfg := testConfig(srv.Addr, ScenarioE2E)
	cfg.Producers, cfg.Conns, cfg.Tubes, cfg.Jobs = 2, 3, 2, 300
	r := runOK(t, cfg)
	assert.Equal(t, int64(300), r.Puts)
	assert.Equal(t, int64(300), r.Ops, "every job put was consumed and counted")
	assert.Zero(t, r.Left)
	assert.Greater(t, r.Latency.P50, 0.0)
}

func TestPacedE2EAgainstReference(t *testing.T) {
	srv := startReference(t)
	cfg := testConfig(srv.Addr, ScenarioE2E)
	cfg.Producers, cfg.Conns, cfg.Jobs, cfg.Rate = 2, 2, 100, 2000
	r := runOK(t, cfg)
	assert.Equal(t, int64(100), r.Ops)
	assert.GreaterOrEqual(t, r.Elapsed, 0.045, "100 puts at 2000/s take at least 49 intervals of 1 ms")
}

func TestLargeBodyPutAgainstReference(t *testing.T) {
	srv := startReference(t)
	cfg := testConfig(srv.Addr, ScenarioPut)
	cfg.Size, cfg.Pipeline, cfg.Jobs = 65536, 4, 20
	r := runOK(t, cfg)
	assert.Equal(t, int64(20), r.Ops)
	assert.Zero(t, r.Left)
}

func TestConnsAgainstReference(t *testing.T) {
	srv := startReference(t)
	cfg := testConfig(srv.Addr, ScenarioConns)
	cfg.Idle, cfg.Probes, cfg.PID = 50, 10, srv.PID
	r := runOK(t, cfg)
	assert.Equal(t, 50, r.Idle)
	assert.Equal(t, int64(30), r.Ops, "put, reserve and delete per probe")
	assert.Positive(t, r.RSSAfter)
	assert.Greater(t, r.Latency.P99, 0.0)
	n, err := countJobs(cfg.WithDefaults())
	require.NoError(t, err)
	assert.Zero(t, n)
}

func TestMemAgainstReference(t *testing.T) {
	srv := startReference(t)
	cfg := testConfig(srv.Addr, ScenarioMem)
	cfg.Jobs, cfg.PID = 5000, srv.PID
	r := runOK(t, cfg)
	assert.Equal(t, int64(5000), r.Ops)
	assert.Greater(t, r.BytesPerJob, 100.0, "a ready job costs at least its body")
	assert.Zero(t, r.Left)
}

func TestCompareStartsServers(t *testing.T) {
	startReference(t) // skips without the binary
	tpl := "beanstalkd -l 127.0.0.1 -p {port}"
	cfg := testConfig("", ScenarioMem)
	cfg.Jobs = 2000
	c, err := Compare(cfg, Target{Label: "A", Template: tpl}, Target{Label: "B", Template: tpl}, 2, nil)
	require.NoError(t, err)
	require.Len(t, c.Rounds, 2)
	assert.Equal(t, "bytes_per_job", c.Metric)
	assert.InDelta(t, 1.0, c.MedianRatio, 0.5, "the same server on both sides")
}

func TestCeilingScenarios(t *testing.T) {
	for _, sc := range []string{ScenarioPut, ScenarioReserve} {
		cfg := testConfig("unused", sc)
		cfg.Conns, cfg.Pipeline, cfg.Batch, cfg.Jobs = 2, 8, 8, 400
		r, err := RunCeiling(cfg, "")
		require.NoError(t, err, sc)
		require.NoError(t, r.Err())
		assert.Equal(t, int64(400), r.Ops, sc)
		assert.Equal(t, CeilingLabel, r.Target)
	}
	cfg := testConfig("unused", ScenarioE2E)
	cfg.Producers, cfg.Conns, cfg.Jobs = 2, 2, 400
	r, err := RunCeiling(cfg, "")
	require.NoError(t, err)
	require.NoError(t, r.Err())
	assert.Equal(t, int64(400), r.Puts)
	assert.Positive(t, r.Ops)
	assert.Positive(t, r.Latency.P50, "reserves carry the latest put's stamp")
}

func TestWarmupThenCountBound(t *testing.T) {
	echo := startEcho(t)
	cfg := testConfig(echo.Addr(), ScenarioPut)
	cfg.Conns, cfg.Pipeline, cfg.NoDrain = 2, 4, true
	cfg.Warmup, cfg.Jobs = 20*time.Millisecond, 300
	r := runOK(t, cfg)
	assert.Equal(t, int64(300), r.Ops, "warmup puts are not counted; the measured ones are exactly the bound")
}

func TestDurationBoundStopsTheRun(t *testing.T) {
	echo := startEcho(t)
	cfg := testConfig(echo.Addr(), ScenarioPut)
	cfg.Conns, cfg.Pipeline, cfg.NoDrain = 2, 4, true
	cfg.Duration = 100 * time.Millisecond
	r := runOK(t, cfg) // returning at all is the point: no Jobs bound, a 30 s Timeout
	assert.GreaterOrEqual(t, r.Ops, int64(0))
	assert.Less(t, r.Elapsed, 30.0)
}

// TestHardTimeoutEndsStuckRun: a server that accepts `use` and then never
// answers must not hang the generator.
func TestHardTimeoutEndsStuckRun(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				r.ReadString('\n')
				c.Write([]byte("USING bench.0\r\n"))
				for {
					if _, err := r.ReadString('\n'); err != nil {
						return
					}
				}
			}()
		}
	}()
	cfg := Config{Addr: ln.Addr().String(), Scenario: ScenarioPut, Duration: time.Hour,
		Timeout: 200 * time.Millisecond, NoDrain: true}
	r, err := Run(cfg)
	require.NoError(t, err)
	assert.Zero(t, r.Ops)
	assert.Zero(t, r.Errors, "errors after the hard timeout are the timeout's doing")
}

func TestValidate(t *testing.T) {
	_, err := Run(Config{Addr: "127.0.0.1:1", Scenario: "nope"})
	assert.ErrorContains(t, err, "unknown scenario")
	_, err = Run(Config{Addr: "127.0.0.1:1", Scenario: ScenarioMem})
	assert.ErrorContains(t, err, "pid")
	_, err = Run(Config{Scenario: ScenarioPut})
	assert.ErrorContains(t, err, "address")
	_, err = Run(Config{Addr: "127.0.0.1:1", Scenario: ScenarioReserve, Jobs: 300_000, Size: 65535})
	assert.ErrorContains(t, err, "over 8 GiB")
	_, err = Run(Config{Addr: "10.1.2.3:11300", Scenario: ScenarioPut})
	assert.ErrorContains(t, err, "loopback")
	assert.True(t, isLoopback("[::1]:1"))
	assert.True(t, isLoopback("localhost:1"))
	assert.False(t, isLoopback("example.com:1"))
}
