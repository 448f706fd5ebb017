package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/stalkd/stalkd/benchmarks/loadgen"
)

// matrixCase is one row of benchmarks/BENCHMARKS.md.
type matrixCase struct {
	name string
	cfg  loadgen.Config
	// serverArgs are appended to every server template for this case
	// (e.g. "-b {dir} -f0"); a case with them needs templates, not
	// running servers.
	serverArgs string
	heavy      bool // only with --heavy
}

// largeBody is the "64 KiB" body: the largest job both servers accept with
// their default -z (65,535), so the matrix runs against servers as installed.
const largeBody = 65535

// matrix is the case list of `all` and `compare-all`, each case followed by
// its twin with the log on (withLog); timed cases run a 1 s
// warmup and then d (--duration); -n caps the count of the others. Heavy
// cases (minutes each against the reference) run only with --heavy.
func matrix(d time.Duration, heavy bool) []matrixCase {
	timed := func(c loadgen.Config) loadgen.Config {
		c.Warmup, c.Duration = time.Second, d
		return c
	}
	const put, res, e2e = loadgen.ScenarioPut, loadgen.ScenarioReserve, loadgen.ScenarioE2E
	all := []matrixCase{
		{name: "put-pipelined", cfg: timed(loadgen.Config{Scenario: put, Conns: 10, Pipeline: 64})},
		{name: "reserve-batched", cfg: loadgen.Config{Scenario: res, Conns: 10, Batch: 16, Jobs: 1_000_000}},
		{name: "put-1conn", cfg: timed(loadgen.Config{Scenario: put, Conns: 1})},
		{name: "put-10conns", cfg: timed(loadgen.Config{Scenario: put, Conns: 10})},
		{name: "put-100conns", cfg: timed(loadgen.Config{Scenario: put, Conns: 100})},
		{name: "put-1000conns", cfg: timed(loadgen.Config{Scenario: put, Conns: 1000})},
		{name: "reserve-1conn", cfg: loadgen.Config{Scenario: res, Conns: 1, Jobs: 100_000}},
		{name: "reserve-10conns", cfg: loadgen.Config{Scenario: res, Conns: 10, Jobs: 200_000}},
		{name: "reserve-100conns", cfg: loadgen.Config{Scenario: res, Conns: 100, Jobs: 300_000}},
		{name: "reserve-1000conns", cfg: loadgen.Config{Scenario: res, Conns: 1000, Jobs: 300_000}},
		{name: "reserve-watch-1000", cfg: loadgen.Config{Scenario: res, Conns: 1, Tubes: 1000, WatchAll: true,
			Jobs: 100_000}},
		{name: "e2e-50x50", cfg: timed(loadgen.Config{Scenario: e2e, Producers: 50, Conns: 50})},
		{name: "e2e-50x50-paced", cfg: timed(loadgen.Config{Scenario: e2e, Producers: 50, Conns: 50, Rate: 5000})},
		{name: "put-64KiB", cfg: timed(loadgen.Config{Scenario: put, Conns: 10, Pipeline: 4, Size: largeBody})},
		{name: "reserve-64KiB", cfg: loadgen.Config{Scenario: res, Conns: 10, Batch: 4, Size: largeBody, Jobs: 20_000}},
		{name: "put-1conn-f0", cfg: timed(loadgen.Config{Scenario: put, Conns: 1}), serverArgs: "-b {dir} -f0"},
		// The three fsync policies with 10 clients: -f0 (group commit),
		// the default -f 50, -F (never).
		{name: "put-10conns-f0", cfg: timed(loadgen.Config{Scenario: put, Conns: 10}), serverArgs: "-b {dir} -f0"},
		{name: "put-10conns-f50", cfg: timed(loadgen.Config{Scenario: put, Conns: 10}), serverArgs: "-b {dir} -f50"},
		{name: "put-10conns-F", cfg: timed(loadgen.Config{Scenario: put, Conns: 10}), serverArgs: "-b {dir} -F"},
		{name: "put-10k-tubes", cfg: timed(loadgen.Config{Scenario: put, Conns: 10, DelayedTubes: 10_000})},
		{name: "mem-1M-jobs", cfg: loadgen.Config{Scenario: loadgen.ScenarioMem, Jobs: 1_000_000}},
		{name: "conns-10k-idle", cfg: loadgen.Config{Scenario: loadgen.ScenarioConns, Idle: 10_000}},
		{name: "connect-10conns", cfg: timed(loadgen.Config{Scenario: loadgen.ScenarioConnect, Conns: 10})},
		{name: "put-100k-tubes", heavy: true,
			cfg: timed(loadgen.Config{Scenario: put, Conns: 10, DelayedTubes: 100_000, Timeout: 15 * time.Minute})},
		{name: "reserve-100k-tubes", heavy: true,
			cfg: loadgen.Config{Scenario: res, Conns: 10, Jobs: 20_000, DelayedTubes: 100_000, Timeout: 15 * time.Minute}},
		{name: "mem-return-1M", heavy: true,
			cfg: loadgen.Config{Scenario: loadgen.ScenarioMemReturn, Jobs: 1_000_000, Settle: 30 * time.Second}},
	}
	var out []matrixCase
	for _, c := range all {
		if heavy || !c.heavy {
			out = append(out, c)
			if c.serverArgs == "" {
				out = append(out, withLog(c))
			}
		}
	}
	return out
}

// withLog is c's twin with the write-ahead log on at the default fsync
// policy (-b DIR, as users run the server), named c.name+"-b". Every case
// without server flags of its own runs both ways.
func withLog(c matrixCase) matrixCase {
	c.name += "-b"
	c.serverArgs = "-b {dir}"
	return c
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
	case loadgen.ScenarioPut, loadgen.ScenarioReserve, loadgen.ScenarioConnect:
		fmt.Fprintf(&b, " -c %d", c.Conns)
	}
	if c.Pipeline > 1 {
		fmt.Fprintf(&b, " -d %d", c.Pipeline)
	}
	if c.Batch > 1 {
		fmt.Fprintf(&b, " -b %d", c.Batch)
	}
	if c.Tubes > 1 {
		fmt.Fprintf(&b, " -t %d", c.Tubes)
	}
	if c.WatchAll {
		b.WriteString(" --watch-all")
	}
	if c.DelayedTubes > 0 {
		fmt.Fprintf(&b, " --delayed-tubes %d", c.DelayedTubes)
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
	if c.Scenario == loadgen.ScenarioMemReturn {
		fmt.Fprintf(&b, " --settle %v", c.Settle)
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
	var res *Results
	if o.results != "" {
		res = &Results{Started: time.Now(), Command: "stalkd-bench " + strings.Join(os.Args[1:], " "),
			Note: o.note, Machine: machine()}
	}
	for _, mc := range matrix(d, o.heavy) {
		if !strings.Contains(mc.name, o.only) {
			continue
		}
		sub := *o
		sub.scenario = mc.cfg.Scenario
		sub.cfg = mc.cfg
		sub.cfg.Addr, sub.cfg.PID, sub.cfg.Label = o.cfg.Addr, o.cfg.PID, o.cfg.Label
		sub.cfg.Progress, sub.cfg.NoDrain = o.cfg.Progress, o.cfg.NoDrain
		sub.cfg.TLS = o.cfg.TLS
		if o.cfg.Timeout > 0 {
			sub.cfg.Timeout = o.cfg.Timeout
		}
		if o.cfg.Settle > 0 {
			sub.cfg.Settle = o.cfg.Settle
		}
		if mc.serverArgs != "" {
			if !sub.withServerArgs(mc.serverArgs) {
				if !o.json {
					fmt.Fprintf(stdout, "\n## %s\nskipped: needs server templates (--server, or --server-a and --server-b) to add %q\n",
						mc.name, mc.serverArgs)
				}
				continue
			}
		}
		if o.cfg.Jobs > 0 && sub.cfg.Jobs > 0 {
			sub.cfg.Jobs = min(sub.cfg.Jobs, o.cfg.Jobs) // -n caps the count-bounded cases
		}
		if !o.json {
			fmt.Fprintf(stdout, "\n## %s\n$ %s %s\n", mc.name, commandLine(sub.cfg), sub.targetFlags())
		}
		var out strings.Builder
		var err error
		load := loadAverage()
		if o.comparing() {
			err = runCompare(&sub, &out, stderr)
		} else {
			err = runSingle(&sub, &out, stderr)
		}
		if res != nil {
			cr := CaseResult{Name: mc.name, Command: commandLine(sub.cfg), LoadBefore: load, LoadAfter: loadAverage(),
				Comparison: sub.lastCmp}
			if err != nil {
				cr.Error = err.Error()
			}
			res.Cases = append(res.Cases, cr)
			res.Finished = time.Now()
			if werr := writeResults(o.results, res); werr != nil {
				return werr
			}
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

// withServerArgs appends args to every server template; false when a
// target is a running server (no template to add them to).
func (o *options) withServerArgs(args string) bool {
	switch {
	case o.comparing() && (o.serverA == "" || o.serverB == ""):
		return false
	case !o.comparing() && o.server == "":
		return false
	}
	for _, t := range []*string{&o.server, &o.serverA, &o.serverB} {
		if *t != "" {
			*t += " " + args
		}
	}
	return true
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
