package loadgen

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
)

// Target is one side of a comparison: a running server at Addr (with PID,
// if known, for its RSS and CPU figures), or one started afresh for every
// run from Template (which must contain {port}).
type Target struct {
	Label    string
	Addr     string
	PID      int
	Template string
}

// Round is one A/B pair of a comparison.
type Round struct {
	A     Result  `json:"a"`
	B     Result  `json:"b"`
	Ratio float64 `json:"ratio"` // A's metric over B's: see Metric
}

// Comparison is the outcome of Compare. Ratios of 0 mean B measured 0.
type Comparison struct {
	Metric      string  `json:"metric"` // what Ratio divides
	Rounds      []Round `json:"rounds"`
	MedianRatio float64 `json:"median_ratio"`
	MedianP99   float64 `json:"median_p99_ratio"` // A's p99 over B's, median over rounds
	// MedianCPU is A's server CPU per operation over B's, median over the
	// rounds where both were measured (0: never).
	MedianCPU float64 `json:"median_cpu_per_op_ratio,omitempty"`
}

// Metric names the figure a scenario's comparison divides: memory per job
// for mem, memory per connection for conns (p99 probe latency without RSS),
// throughput otherwise.
func Metric(cfg Config) string {
	switch {
	case cfg.Scenario == ScenarioMem:
		return "bytes_per_job"
	case cfg.Scenario == ScenarioMemReturn:
		return "rss_settled"
	case cfg.Scenario == ScenarioConns && cfg.PID != 0:
		return "bytes_per_conn"
	case cfg.Scenario == ScenarioConns:
		return "p99"
	}
	return "ops_per_sec"
}

func metricOf(metric string, r Result) float64 {
	switch metric {
	case "bytes_per_job":
		return r.BytesPerJob
	case "bytes_per_conn":
		return r.BytesPerConn
	case "rss_settled":
		return float64(r.RSSSettled)
	case "p99":
		return r.Latency.P99
	}
	return r.OpsPerSec
}

// Ratio is a/b, or 0 when b is 0 (JSON has no infinity).
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// Median of xs (mean of the middle two for an even count); 0 when empty. xs is not modified.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// Summarize fills in the ratios of rounds whose A and B are set.
func Summarize(metric string, rounds []Round) Comparison {
	c := Comparison{Metric: metric, Rounds: rounds}
	var ratios, p99s, cpus []float64
	for i := range c.Rounds {
		r := &c.Rounds[i]
		r.Ratio = Ratio(metricOf(metric, r.A), metricOf(metric, r.B))
		ratios = append(ratios, r.Ratio)
		p99s = append(p99s, Ratio(r.A.Latency.P99, r.B.Latency.P99))
		if r.A.CPUPerOpUs > 0 && r.B.CPUPerOpUs > 0 {
			cpus = append(cpus, r.A.CPUPerOpUs/r.B.CPUPerOpUs)
		}
	}
	c.MedianRatio, c.MedianP99, c.MedianCPU = Median(ratios), Median(p99s), Median(cpus)
	if math.IsNaN(c.MedianP99) {
		c.MedianP99 = 0
	}
	return c
}

// Compare runs cfg against a and b alternately for rounds rounds (A first in
// odd rounds, B first in even ones, so drift hurts both alike). Targets with
// a Template get a fresh server per run, whose PID feeds the RSS figures.
// Server output goes to logs (nil: discarded).
func Compare(cfg Config, a, b Target, rounds int, logs io.Writer) (Comparison, error) {
	rounds = max(rounds, 1)
	metric := Metric(cfg)
	if cfg.Scenario == ScenarioConns {
		metric = "p99"
		if (a.Template != "" || a.PID != 0) && (b.Template != "" || b.PID != 0) {
			metric = "bytes_per_conn" // both servers are ours to read
		}
	}
	var out []Round
	for i := range rounds {
		var ra, rb Result
		var err error
		if i%2 == 0 {
			if ra, err = runTarget(cfg, a, logs); err == nil {
				rb, err = runTarget(cfg, b, logs)
			}
		} else {
			if rb, err = runTarget(cfg, b, logs); err == nil {
				ra, err = runTarget(cfg, a, logs)
			}
		}
		if err != nil {
			return Summarize(metric, out), fmt.Errorf("round %d: %w", i+1, err)
		}
		out = append(out, Round{A: ra, B: rb})
	}
	return Summarize(metric, out), nil
}

// runTarget runs cfg against t, starting and stopping t's server if it has a template.
func runTarget(cfg Config, t Target, logs io.Writer) (Result, error) {
	cfg.Addr, cfg.Label, cfg.PID = t.Addr, t.Label, t.PID
	if t.Template != "" {
		srv, err := StartServer(t.Template, logs)
		if err != nil {
			return Result{}, err
		}
		defer srv.Stop()
		cfg.Addr, cfg.PID = srv.Addr, srv.PID
	}
	return Run(cfg)
}

// WriteComparison prints one line per round and the median ratio.
func WriteComparison(out io.Writer, c Comparison) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "round\tA\tB\t%s A\t%s B\tA/B\tp99 A\tp99 B\tcpu/op A\tcpu/op B\tcpu A/B\t\n", c.Metric, c.Metric)
	for i, r := range c.Rounds {
		cpuRatio := "-"
		if r.A.CPUPerOpUs > 0 && r.B.CPUPerOpUs > 0 {
			cpuRatio = fmt.Sprintf("%.3f", r.A.CPUPerOpUs/r.B.CPUPerOpUs)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%.0f\t%.0f\t%.3f\t%s\t%s\t%s\t%s\t%s\t\n", i+1, r.A.Target, r.B.Target,
			metricOf(c.Metric, r.A), metricOf(c.Metric, r.B), r.Ratio, fmtUs(r.A.Latency.P99), fmtUs(r.B.Latency.P99),
			fmtCPU(r.A), fmtCPU(r.B), cpuRatio)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(out, "median A/B %s ratio over %d rounds: %.3f (median p99 ratio %.3f)\n",
		c.Metric, len(c.Rounds), c.MedianRatio, c.MedianP99)
	if err == nil && c.MedianCPU > 0 {
		_, err = fmt.Fprintf(out, "median A/B server CPU per operation: %.3f\n", c.MedianCPU)
	}
	return err
}
