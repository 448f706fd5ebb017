package loadgen

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMedian(t *testing.T) {
	assert.Equal(t, 0.0, Median(nil))
	assert.Equal(t, 2.0, Median([]float64{3, 1, 2}))
	assert.Equal(t, 2.5, Median([]float64{4, 1, 3, 2}))
	xs := []float64{3, 1, 2}
	Median(xs)
	assert.Equal(t, []float64{3, 1, 2}, xs, "the input is not reordered")
}

func TestRatio(t *testing.T) {
	assert.Equal(t, 4.0, Ratio(400, 100))
	assert.Equal(t, 0.0, Ratio(400, 0), "no infinity in JSON")
}

func TestSummarize(t *testing.T) {
	res := func(ops, p99 float64) Result { return Result{OpsPerSec: ops, Latency: Latency{P99: p99}} }
	rounds := []Round{
		{A: res(400, 10), B: res(100, 20)}, // 4.0
		{A: res(300, 10), B: res(100, 10)}, // 3.0
		{A: res(500, 30), B: res(100, 10)}, // 5.0
	}
	c := Summarize("ops_per_sec", rounds)
	require.Len(t, c.Rounds, 3)
	assert.Equal(t, []float64{4, 3, 5}, []float64{c.Rounds[0].Ratio, c.Rounds[1].Ratio, c.Rounds[2].Ratio})
	assert.Equal(t, 4.0, c.MedianRatio)
	assert.Equal(t, 1.0, c.MedianP99) // 0.5, 1, 3

	mem := Summarize("bytes_per_job", []Round{{A: Result{BytesPerJob: 150}, B: Result{BytesPerJob: 300}}})
	assert.Equal(t, 0.5, mem.MedianRatio)

	var out bytes.Buffer
	require.NoError(t, WriteComparison(&out, c))
	assert.Contains(t, out.String(), "median A/B ops_per_sec ratio over 3 rounds: 4.000")
}

func TestMetric(t *testing.T) {
	assert.Equal(t, "ops_per_sec", Metric(Config{Scenario: ScenarioPut}))
	assert.Equal(t, "bytes_per_job", Metric(Config{Scenario: ScenarioMem}))
	assert.Equal(t, "p99", Metric(Config{Scenario: ScenarioConns}))
	assert.Equal(t, "bytes_per_conn", Metric(Config{Scenario: ScenarioConns, PID: 7}))
}

func TestCompareAlternatesTargets(t *testing.T) {
	a := startEcho(t)
	b := startEcho(t)
	cfg := Config{Scenario: ScenarioPut, Conns: 2, Pipeline: 4, Jobs: 200}
	c, err := Compare(cfg, Target{Label: "A", Addr: a.Addr()}, Target{Label: "B", Addr: b.Addr()}, 2, nil)
	require.NoError(t, err)
	require.Len(t, c.Rounds, 2)
	for _, r := range c.Rounds {
		assert.Equal(t, "A", r.A.Target)
		assert.Equal(t, "B", r.B.Target)
		assert.Equal(t, int64(200), r.A.Ops)
		assert.Equal(t, int64(200), r.B.Ops)
		assert.Greater(t, r.Ratio, 0.0)
	}
	assert.Greater(t, c.MedianRatio, 0.0)
}
