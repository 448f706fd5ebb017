package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stalkd/stalkd/benchmarks/loadgen"
)

// matrixCase is one row of BENCHMARKS.md.
type matrixCase struct {
	name string
	cfg  loadgen.Config
}

// largeBody is the "64 KiB" body: the largest job both servers accept with
// their default -z (65,535), so the matrix runs against servers as installed.
const largeBody = 65535

// matrix is the case list of `all` and `compare-all`; timed cases run a 1 s
// warmup and then d (--duration); -n caps the count of the others.
func matrix(d time.Duration) []matrixCase {
	timed := func(c loadgen.Config) loadgen.Config {
		c.Warmup, c.Duration = time.Second, d
		return c
	}
	const put, res, e2e = loadgen.ScenarioPut, loadgen.ScenarioReserve, loadgen.ScenarioE2E
	return []matrixCase{
		{"put-pipelined", timed(loadgen.Config{Scenario: put, Conns: 10, Pipeline: 64})},
		{"reserve-batched", loadgen.Config{Scenario: res, Conns: 10, Batch: 16, Jobs: 1_000_000}},
		{"put-100conns", timed(loadgen.Config{Scenario: put, Conns: 100})},
		{"reserve-100conns", loadgen.Config{Scenario: res, Conns: 100, Jobs: 300_000}},
		{"e2e-50x50", timed(loadgen.Config{Scenario: e2e, Producers: 50, Conns: 50})},
		{"e2e-50x50-paced", timed(loadgen.Config{Scenario: e2e, Producers: 50, Conns: 50, Rate: 5000})},
		{"put-64KiB", timed(loadgen.Config{Scenario: put, Conns: 10, Pipeline: 4, Size: largeBody})},
		{"reserve-64KiB", loadgen.Config{Scenario: res, Conns: 10, Batch: 4, Size: largeBody, Jobs: 20_000}},
		{"mem-1M-jobs", loadgen.Config{Scenario: loadgen.ScenarioMem, Jobs: 1_000_000}},
		{"conns-10k-idle", loadgen.Config{Scenario: loadgen.ScenarioConns, Idle: 10_000}},
	}
}

// commandLine is the stalkd-bench invocation that runs c on its own.
func commandLine(c loadgen.Config) string {
	timed := c.Duration > 0
	c = c.WithDefaults()
	var b strings.Builder
	fmt.Fprintf(&b, "stalkd-bench %s", c.Scenario)
	switch c.Scenario {
	case loadgen.ScenarioE2E:
		fmt.Fprintf(&b, " -p %d -c %d", c.Producers, c.Conns)
	case loadgen.ScenarioPut, loadgen.ScenarioReserve:
		fmt.Fprintf(&b, " -c %d", c.Conns)
	}
	if c.Pipeline > 1 {
		fmt.Fprintf(&b, " -d %d", c.Pipeline)
	}
	if c.Batch > 1 {
		fmt.Fprintf(&b, " -b %d", c.Batch)
	}
	if c.Scenario != loadgen.ScenarioConns {
		fmt.Fprintf(&b, " -s %d", c.Size)
	}
	if c.Rate > 0 {
		fmt.Fprintf(&b, " --rate %g", c.Rate)
	}
	if c.Scenario == loadgen.ScenarioConns {
		fmt.Fprintf(&b, " --idle %d", c.Idle)
	} else if c.Jobs > 0 {
		fmt.Fprintf(&b, " -n %d", c.Jobs)
	}
	if c.Warmup > 0 {
		fmt.Fprintf(&b, " --warmup %v", c.Warmup)
	}
	if timed {
		fmt.Fprintf(&b, " --duration %v", c.Duration)
	}
	return b.String()
}

// runMatrix runs every case (those whose name contains --only) against one
// target (`all`) or two (`compare-all`), printing a section per case.
func runMatrix(o *options, stdout, stderr io.Writer) error {
	d := o.cfg.Duration
	if d <= 0 {
		d = 5 * time.Second
	}
	report := map[string]any{}
	var failed []string
	for _, mc := range matrix(d) {
		if !strings.Contains(mc.name, o.only) {
			continue
		}
		sub := *o
		sub.scenario = mc.cfg.Scenario
		sub.cfg = mc.cfg
		sub.cfg.Addr, sub.cfg.PID, sub.cfg.Label = o.cfg.Addr, o.cfg.PID, o.cfg.Label
		sub.cfg.Progress, sub.cfg.NoDrain, sub.cfg.Timeout = o.cfg.Progress, o.cfg.NoDrain, o.cfg.Timeout
		sub.cfg.TLS = o.cfg.TLS
		if o.cfg.Jobs > 0 && sub.cfg.Jobs > 0 {
			sub.cfg.Jobs = min(sub.cfg.Jobs, o.cfg.Jobs) // -n caps the count-bounded cases
		}
		if !o.json {
			fmt.Fprintf(stdout, "\n## %s\n$ %s %s\n", mc.name, commandLine(sub.cfg), o.targetFlags())
		}
		var out strings.Builder
		var err error
		if o.comparing() {
			err = runCompare(&sub, &out, stderr)
		} else {
			err = runSingle(&sub, &out, stderr)
		}
		if o.json {
			report[mc.name] = jsonOrError(out.String(), err)
		} else {
			fmt.Fprint(stdout, out.String())
		}
		if err != nil {
			failed = append(failed, mc.name)
			fmt.Fprintf(stderr, "stalkd-bench: %s: %v\n", mc.name, err)
		}
	}
	if o.json {
		if err := loadgen.WriteJSON(stdout, report); err != nil {
			return err
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("failed: %s", strings.Join(failed, ", "))
	}
	return nil
}

// targetFlags is the part of the command line that names the target(s).
func (o *options) targetFlags() string {
	q := func(s string) string { return "'" + s + "'" }
	var parts []string
	switch {
	case o.serverA != "":
		parts = append(parts, "--server-a "+q(o.serverA))
	case o.comparing():
		parts = append(parts, "-a "+o.cfg.Addr)
	case o.server != "":
		parts = append(parts, "--server "+q(o.server))
	default:
		parts = append(parts, "-a "+o.cfg.Addr)
	}
	switch {
	case o.serverB != "":
		parts = append(parts, "--server-b "+q(o.serverB))
	case o.compare != "":
		parts = append(parts, "--compare "+o.compare)
	}
	if o.comparing() {
		parts = append(parts, fmt.Sprintf("--rounds %d", o.rounds))
	}
	return strings.Join(parts, " ")
}

// jsonOrError is a case's JSON output, or its error.
func jsonOrError(out string, err error) any {
	if err != nil {
		return map[string]string{"error": err.Error()}
	}
	return json.RawMessage(out)
}
