package main

import (
	"errors"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/benchmarks/loadgen"
)

var updateTable = flag.Bool("update", false, "regenerate BENCHMARKS.md's current table from benchmarks/results.json")

// The current table's markers in benchmarks/BENCHMARKS.md.
const (
	tableBegin = "<!-- BEGIN current: generated from results.json by `go test ./benchmarks/cmd/stalkd-bench -run TestBenchmarksTable -update`; do not edit -->"
	tableEnd   = "<!-- END current -->"
)

// TestBenchmarksTable: BENCHMARKS.md's current table is what resultsTable
// makes of benchmarks/results.json, so a figure quoted there has one
// source. With -update it rewrites the table.
func TestBenchmarksTable(t *testing.T) {
	const doc, results = "../../BENCHMARKS.md", "../../results.json"
	r, err := readResults(results)
	require.NoError(t, err)
	require.NotEmpty(t, r.Cases)
	b, err := os.ReadFile(doc)
	require.NoError(t, err)
	text := string(b)
	got, err := tableBlock(text)
	require.NoError(t, err)
	want := resultsTable(r)
	if *updateTable && got != want {
		text = strings.Replace(text, tableBegin+"\n"+got+tableEnd, tableBegin+"\n"+want+tableEnd, 1)
		require.NoError(t, os.WriteFile(doc, []byte(text), 0o644))
		return
	}
	assert.Equal(t, want, got, "BENCHMARKS.md's current table is generated from results.json: run this test with -update")
}

// TestBenchmarksTableBites: a figure changed in the results file changes
// the table, and a document without the markers is refused.
func TestBenchmarksTableBites(t *testing.T) {
	r := &Results{Started: time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC), Finished: time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC),
		Cases: []CaseResult{{Name: "put-1conn", Comparison: &loadgen.Comparison{Metric: "ops_per_sec", MedianRatio: 1.25}}}}
	before := resultsTable(r)
	got, err := tableBlock("intro\n" + tableBegin + "\n" + before + tableEnd + "\nrest\n")
	require.NoError(t, err)
	assert.Equal(t, before, got)
	r.Cases[0].Comparison.MedianRatio = 0.5
	assert.NotEqual(t, before, resultsTable(r))
	_, err = tableBlock("no table here")
	assert.Error(t, err)
}

// tableBlock returns what stands between the current table's markers.
func tableBlock(text string) (string, error) {
	_, rest, ok := strings.Cut(text, tableBegin+"\n")
	if !ok {
		return "", errors.New("BENCHMARKS.md: no current-table start marker")
	}
	block, _, ok := strings.Cut(rest, tableEnd)
	if !ok {
		return "", errors.New("BENCHMARKS.md: no current-table end marker")
	}
	return block, nil
}
