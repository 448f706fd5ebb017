package loadgen

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseStatCPU(t *testing.T) {
	// A command name with spaces and a ')' must not shift the fields.
	stat := "4242 (weird) name) S 1 4242 4242 0 -1 4194560 1234 0 0 0 250 75 0 0 20 0 3 0 100 1000 50 " +
		"18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"
	d, err := parseStatCPU(stat)
	require.NoError(t, err)
	assert.Equal(t, 325*clockTick, d, "utime 250 + stime 75 ticks")

	_, err = parseStatCPU("4242 no name here")
	assert.Error(t, err)
	_, err = parseStatCPU("1 (x) S 1 2 3")
	assert.Error(t, err)
	_, err = parseStatCPU("1 (x) S 1 1 1 0 -1 0 0 0 0 0 ab 1 0")
	assert.Error(t, err)
}

func TestReadCPUOfThisProcess(t *testing.T) {
	before, err := ReadCPU(os.Getpid())
	require.NoError(t, err)
	// Burn CPU until the counter moves (a bounded loop, no timing assertion).
	deadline := time.Now().Add(20 * time.Second)
	var after time.Duration
	for x := 0; time.Now().Before(deadline); x++ {
		if x%1_000_000 == 0 {
			if after, err = ReadCPU(os.Getpid()); err != nil || after > before {
				break
			}
		}
	}
	require.NoError(t, err)
	assert.Greater(t, after, before)
	_, err = ReadCPU(1 << 30) // no such process
	assert.Error(t, err)
}

func TestCPUMeterFill(t *testing.T) {
	m := cpuMeter{pid: 1, started: true, used: 3 * time.Second}
	r := Result{Ops: 1_000_000}
	m.fill(&r)
	assert.Equal(t, 3.0, r.ServerCPU)
	assert.InDelta(t, 3.0, r.CPUPerOpUs, 1e-9)
	var none Result
	(&cpuMeter{}).fill(&none)
	assert.Zero(t, none.CPUPerOpUs, "no pid, no figure")
}

// TestRunReportsServerCPU: a run against a started server (the reference)
// reports its CPU per operation, in the table and in the comparison.
func TestRunReportsServerCPU(t *testing.T) {
	srv := startReference(t)
	cfg := testConfig(srv.Addr, ScenarioPut)
	cfg.Conns, cfg.Jobs, cfg.PID = 4, 20_000, srv.PID
	r := runOK(t, cfg)
	require.Greater(t, r.ServerCPU, 0.0, "20k puts cost the server at least a tick")
	assert.InDelta(t, r.ServerCPU*1e6/float64(r.Ops), r.CPUPerOpUs, 1e-6)

	var out bytes.Buffer
	require.NoError(t, WriteTable(&out, r))
	assert.Contains(t, out.String(), "cpu/op")
	assert.Contains(t, out.String(), "µs")

	c := Summarize("ops_per_sec", []Round{
		{A: Result{OpsPerSec: 1, CPUPerOpUs: 2}, B: Result{OpsPerSec: 1, CPUPerOpUs: 4}},
		{A: Result{OpsPerSec: 1, CPUPerOpUs: 3}, B: Result{OpsPerSec: 1, CPUPerOpUs: 4}},
		{A: Result{OpsPerSec: 1}, B: Result{OpsPerSec: 1, CPUPerOpUs: 4}}, // A unmeasured: left out
	})
	assert.Equal(t, 0.625, c.MedianCPU)
	out.Reset()
	require.NoError(t, WriteComparison(&out, c))
	assert.Contains(t, out.String(), "median A/B server CPU per operation: 0.625")
}
