package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/stalkd/stalkd/benchmarks/loadgen"
)

// A results file is what `compare-all --results FILE` writes: every case's
// comparison, in the matrix's order, with the load average around it. The
// current table of benchmarks/BENCHMARKS.md is generated from the one in
// the repository (benchmarks/results.json) by a test, so the figures have
// one source:
//
//	go test ./benchmarks/cmd/stalkd-bench -run TestBenchmarksTable -update

// Results is a results file.
type Results struct {
	Started  time.Time    `json:"started"`
	Finished time.Time    `json:"finished"`
	Command  string       `json:"command"`           // the stalkd-bench command line
	Note     string       `json:"note,omitempty"`    // --results-note: what was built, where
	Machine  string       `json:"machine,omitempty"` // CPU model, count, kernel
	Cases    []CaseResult `json:"cases"`
}

// CaseResult is one case of a results file.
type CaseResult struct {
	Name    string `json:"name"`
	Command string `json:"command"` // the stalkd-bench invocation of the case alone
	// LoadBefore and LoadAfter are the one-minute load average when the
	// case began and ended (0: not known).
	LoadBefore float64             `json:"load_before"`
	LoadAfter  float64             `json:"load_after"`
	Comparison *loadgen.Comparison `json:"comparison,omitempty"`
	Error      string              `json:"error,omitempty"`
}

// loadAverage is the one-minute load average, or 0 where /proc has none.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _, _ := strings.Cut(string(b), " ")
	v, _ := strconv.ParseFloat(f, 64)
	return v
}

// machine describes the box: CPU model and count, kernel.
func machine() string {
	var parts []string
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		n, model := 0, ""
		for _, line := range strings.Split(string(b), "\n") {
			k, v, _ := strings.Cut(line, ":")
			switch strings.TrimSpace(k) {
			case "processor":
				n++
			case "model name":
				model = strings.TrimSpace(v)
			}
		}
		parts = append(parts, fmt.Sprintf("%d x %s", n, model))
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		parts = append(parts, "Linux "+strings.TrimSpace(string(b)))
	}
	return strings.Join(parts, ", ")
}

// writeResults writes r to path (after every case, so that a run cut short
// leaves what it measured).
func writeResults(path string, r *Results) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// readResults reads a results file.
func readResults(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// resultsTable renders r as BENCHMARKS.md's current table: one row per
// case, in memory and with the log side by side (a NAME-b case is NAME's
// right column; a case that exists only with the log, an fsync policy, has
// no left one), then the geometric mean of each column's throughput rows.
func resultsTable(r *Results) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s to %s UTC; %s.\n\n", r.Started.UTC().Format("2006-01-02 15:04"), r.Finished.UTC().Format("15:04"), r.Machine)
	if r.Note != "" {
		fmt.Fprintf(&b, "%s\n\n", r.Note)
	}
	fmt.Fprintf(&b, "```sh\n%s\n```\n\n", r.Command)
	b.WriteString("| case | in memory | with `-b` |\n|---|---:|---:|\n")
	byName := map[string]*CaseResult{}
	for i := range r.Cases {
		byName[r.Cases[i].Name] = &r.Cases[i]
	}
	var logs, mems []float64
	for i := range r.Cases {
		c := &r.Cases[i]
		base, isLog := strings.CutSuffix(c.Name, "-b")
		if isLog && byName[base] != nil {
			continue // the right column of base's row
		}
		mem, log := c, byName[c.Name+"-b"]
		if policyCase(c.Name) {
			mem, log = nil, c // -b only: an fsync policy
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", c.Name, cell(mem, &mems), cell(log, &logs))
	}
	fmt.Fprintf(&b, "| geometric mean of the throughput rows | %s | %s |\n", geomean(mems), geomean(logs))
	b.WriteString("\nEach cell: the median over the rounds of stalkd's throughput over beanstalkd's (for `mem` and\n" +
		"`conns`, bytes per job or per connection: lower is better), then the median ratio of server CPU per\n" +
		"operation, then the one-minute load average as the case began and ended.\n")
	return b.String()
}

// policyCase reports a case that exists only with the log (an fsync
// policy: -f0, -f50, -F).
func policyCase(name string) bool {
	for _, p := range []string{"-f0", "-f50", "-F"} {
		if strings.HasSuffix(name, p) {
			return true
		}
	}
	return false
}

// cell renders one figure of the table, adding a throughput ratio to ratios.
func cell(c *CaseResult, ratios *[]float64) string {
	switch {
	case c == nil:
		return "—"
	case c.Error != "" || c.Comparison == nil:
		return "failed"
	}
	cmp := c.Comparison
	s := fmt.Sprintf("**%.2f×**", cmp.MedianRatio)
	if cmp.Metric != "ops_per_sec" {
		s += " " + strings.ReplaceAll(cmp.Metric, "_", " ")
	} else if cmp.MedianRatio > 0 {
		*ratios = append(*ratios, cmp.MedianRatio)
	}
	if cmp.MedianCPU > 0 {
		s += fmt.Sprintf(" · CPU %.2f×", cmp.MedianCPU)
	}
	if c.LoadBefore > 0 || c.LoadAfter > 0 {
		s += fmt.Sprintf(" · load %.1f–%.1f", c.LoadBefore, c.LoadAfter)
	}
	return s
}

func geomean(v []float64) string {
	if len(v) == 0 {
		return "—"
	}
	var sum float64
	for _, x := range v {
		sum += math.Log(x)
	}
	return fmt.Sprintf("%.2f× (%d rows)", math.Exp(sum/float64(len(v))), len(v))
}
