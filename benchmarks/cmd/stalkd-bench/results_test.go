package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/benchmarks/loadgen"
)

// TestResultsTableRows: a case and its NAME-b twin share a row, an fsync
// policy case has only the log's column, a failed case says so, and the
// geometric mean covers the throughput rows only.
func TestResultsTableRows(t *testing.T) {
	cmp := func(metric string, ratio, cpu float64) *loadgen.Comparison {
		return &loadgen.Comparison{Metric: metric, MedianRatio: ratio, MedianCPU: cpu}
	}
	r := &Results{Started: time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC), Finished: time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC),
		Command: "stalkd-bench compare-all", Machine: "2 x CPU", Cases: []CaseResult{
			{Name: "put-1conn", Comparison: cmp("ops_per_sec", 2, 0.5), LoadBefore: 1.5, LoadAfter: 2},
			{Name: "put-1conn-b", Comparison: cmp("ops_per_sec", 8, 1)},
			{Name: "put-1conn-f0", Comparison: cmp("ops_per_sec", 3, 0)},
			{Name: "mem-1M-jobs", Comparison: cmp("bytes_per_job", 0.75, 0)},
			{Name: "mem-1M-jobs-b", Error: "boom"},
		}}
	table := resultsTable(r)
	assert.Contains(t, table, "| put-1conn | **2.00×** · CPU 0.50× · load 1.5–2.0 | **8.00×** · CPU 1.00× |\n")
	assert.Contains(t, table, "| put-1conn-f0 | — | **3.00×** |\n")
	assert.Contains(t, table, "| mem-1M-jobs | **0.75×** bytes per job | failed |\n")
	assert.NotContains(t, table, "| put-1conn-b |", "a twin is its case's right column")
	assert.Contains(t, table, "| geometric mean of the throughput rows | 2.00× (1 rows) | 4.90× (2 rows) |\n")
	assert.Contains(t, table, "2026-11-28 06:00 to 07:00 UTC; 2 x CPU.")
}

// TestResultsFileFromARun: compare-all --results writes every case as it
// goes, with its command, its load average and its comparison or error
// (the echo server takes no -b: the log's twins fail, and say so).
func TestResultsFileFromARun(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	echo := exe + " serve-echo -a 127.0.0.1:{port} --duration 1m --quiet"
	path := filepath.Join(t.TempDir(), "results.json")
	var out, errs bytes.Buffer
	code := run([]string{"compare-all", "--only", "put-1conn", "--server-a", echo, "--server-b", echo,
		"--rounds", "1", "--duration", "200ms", "--no-drain", "--quiet", "--no-ceiling", "--results", path, "--results-note", "a test"}, &out, &errs)
	assert.Equal(t, 1, code, "the -b cases fail against the echo server")
	r, err := readResults(path)
	require.NoError(t, err, errs.String())
	var names []string
	for _, c := range r.Cases {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"put-1conn", "put-1conn-b", "put-1conn-f0"}, names)
	first := r.Cases[0]
	require.NotNil(t, first.Comparison, first.Error)
	assert.Equal(t, "ops_per_sec", first.Comparison.Metric)
	assert.Greater(t, first.Comparison.MedianRatio, 0.0)
	assert.Equal(t, "stalkd-bench put -c 1 -s 100 --warmup 1s --duration 200ms", first.Command)
	assert.NotEmpty(t, r.Cases[1].Error, "the echo server refuses -b")
	assert.Equal(t, "a test", r.Note)
	assert.False(t, r.Finished.Before(r.Started))
	if _, err := os.Stat("/proc/loadavg"); err == nil {
		assert.Positive(t, first.LoadBefore+first.LoadAfter, "the load average beside the figure")
	}
	assert.Contains(t, resultsTable(r), fmt.Sprintf("| put-1conn | **%.2f×**", first.Comparison.MedianRatio))
}
