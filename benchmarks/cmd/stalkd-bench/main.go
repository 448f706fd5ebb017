// Command stalkd-bench is a load generator for any server that speaks the
// beanstalk protocol. See the loadgen package documentation and benchmarks/BENCHMARKS.md
// at the repository root.
//
//	stalkd-bench put -a 127.0.0.1:11300 -c 10 -d 64 --duration 5s
//	stalkd-bench reserve --server 'beanstalkd -l 127.0.0.1 -p {port}' -c 10 -b 16 -n 1000000
//	stalkd-bench put -c 10 -d 64 --server-a './stalkd -p {port}' --server-b 'beanstalkd -l 127.0.0.1 -p {port}' --rounds 5
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/stalkd/stalkd/benchmarks/loadgen"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseArgs(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "stalkd-bench:", err)
		return 2
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			fmt.Fprintln(stderr, "stalkd-bench:", err)
			return 2
		}
		defer f.Close()
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if _, err := loadgen.RaiseFDLimit(1 << 20); err != nil {
		fmt.Fprintln(stderr, "stalkd-bench: warning: fd limit:", err)
	}
	if o.scenario == "serve-echo" {
		err = serveEcho(o, stderr)
	} else if o.scenario == "cluster-all" {
		err = runClusterMatrix(o, stdout, stderr)
	} else if o.scenario == "all" || o.scenario == "compare-all" {
		err = runMatrix(o, stdout, stderr)
	} else if o.comparing() {
		err = runCompare(o, stdout, stderr)
	} else {
		err = runSingle(o, stdout, stderr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "stalkd-bench:", err)
		return 1
	}
	return 0
}

// runSingle runs the scenario against one target, then the echo ceiling.
func runSingle(o *options, stdout, stderr io.Writer) error {
	cfg := o.cfg
	switch {
	case o.server != "":
		srv, err := loadgen.StartServer(o.server, o.logs(stderr))
		if err != nil {
			return err
		}
		defer srv.Stop()
		cfg.Addr, cfg.PID = srv.Addr, srv.PID
		cfg.Label = pick(cfg.Label, firstWord(o.server))
	case cfg.Addr == "echo":
		echo, err := loadgen.StartEcho("127.0.0.1:0", max(cfg.Size, 100))
		if err != nil {
			return err
		}
		defer echo.Close()
		cfg.Addr, cfg.Label, cfg.NoDrain = echo.Addr(), "echo", true
	}
	res, err := loadgen.Run(cfg)
	if err != nil {
		return err
	}
	results := []loadgen.Result{res}
	if o.ceiling {
		ceil, err := ceilings(cfg)
		if err != nil {
			return err
		}
		results = append(results, ceil...)
	}
	if o.json {
		err = loadgen.WriteJSON(stdout, map[string]any{"results": results})
	} else {
		err = loadgen.WriteTable(stdout, results...)
	}
	if err != nil {
		return err
	}
	return res.Err()
}

// runCompare alternates A and B for --rounds rounds, then runs the ceiling once.
func runCompare(o *options, stdout, stderr io.Writer) error {
	a := loadgen.Target{Label: o.labelA, Addr: o.cfg.Addr, PID: o.cfg.PID, Template: o.serverA}
	b := loadgen.Target{Label: o.labelB, Addr: o.compare, PID: o.comparePID, Template: o.serverB}
	if a.Label == "" {
		a.Label = "A " + pick(firstWord(a.Template), a.Addr)
	}
	if b.Label == "" {
		b.Label = "B " + pick(firstWord(b.Template), b.Addr)
	}
	cmp, err := loadgen.Compare(o.cfg, a, b, o.rounds, o.logs(stderr))
	if err != nil {
		return err
	}
	o.lastCmp = &cmp
	var ceil []loadgen.Result
	if o.ceiling {
		if ceil, err = ceilings(o.cfg); err != nil {
			return err
		}
	}
	if o.json {
		return loadgen.WriteJSON(stdout, map[string]any{"comparison": cmp, "ceiling": ceil})
	}
	var all []loadgen.Result
	for _, r := range cmp.Rounds {
		all = append(all, r.A, r.B)
	}
	if err := loadgen.WriteTable(stdout, append(all, ceil...)...); err != nil {
		return err
	}
	fmt.Fprintln(stdout)
	if err := loadgen.WriteComparison(stdout, cmp); err != nil {
		return err
	}
	for _, r := range all {
		if err := r.Err(); err != nil {
			return err
		}
	}
	return nil
}

// serveEcho runs the built-in echo server on --addr until --duration ends:
// the single-threaded epoll loop, or with --goroutines one goroutine per
// connection (the in-process EchoServer).
func serveEcho(o *options, stderr io.Writer) error {
	d := o.cfg.Duration
	if d <= 0 {
		d = time.Minute
	}
	announce := func(addr string) {
		if !o.quiet {
			fmt.Fprintf(stderr, "echo server on %s for %v\n", addr, d)
		}
	}
	if !o.goroutineEcho {
		stop := make(chan struct{})
		t := time.AfterFunc(d, func() { close(stop) })
		defer t.Stop()
		return loadgen.ServeEchoEpoll(o.cfg.Addr, o.cfg.Size, announce, stop)
	}
	echo, err := loadgen.StartEcho(o.cfg.Addr, o.cfg.Size)
	if err != nil {
		return err
	}
	announce(echo.Addr())
	time.Sleep(d)
	return echo.Close()
}

// ceilings measures the generator against the echo server, in a process of
// its own like a real server (in this process if this binary cannot be
// found: there its goroutines share the generator's scheduler, and on a busy
// machine that showed stalls of a second). None for conns and mem.
func ceilings(cfg loadgen.Config) ([]loadgen.Result, error) {
	if !loadgen.HasCeiling(cfg.Scenario) {
		return nil, nil
	}
	r, err := loadgen.RunCeiling(cfg, ceilingTemplate(cfg))
	if err != nil {
		return nil, fmt.Errorf("ceiling: %w", err)
	}
	return []loadgen.Result{r}, nil
}

// ceilingTemplate runs this very binary's serve-echo in a process of its
// own, bounded by the run's timeout; "" (echo in process) if the binary
// cannot be found.
func ceilingTemplate(cfg loadgen.Config) string {
	self, err := os.Executable()
	if err != nil || strings.ContainsAny(self, " '\"\\$") {
		return ""
	}
	c := cfg.WithDefaults()
	return fmt.Sprintf("%s serve-echo -a 127.0.0.1:{port} -s %d --duration %s", self, c.Size, c.Timeout+time.Minute)
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

func pick(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
