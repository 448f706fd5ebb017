package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/stalkd/stalkd/benchmarks/loadgen"
)

// options is the parsed command line.
type options struct {
	cfg              loadgen.Config
	scenario         string
	server           string
	compare          string
	serverA, serverB string
	labelA, labelB   string
	rounds           int
	comparePID       int
	json, quiet      bool
	ceiling          bool
	serverLog        bool
	cpuProfile       string
	only             string
	goroutineEcho    bool
	heavy            bool
	results, note    string              // compare-all --results FILE, --results-note
	lastCmp          *loadgen.Comparison // the comparison runCompare last made
}

func (o *options) comparing() bool {
	return o.compare != "" || o.serverA != "" || o.serverB != ""
}

// logs is where started servers' output goes.
func (o *options) logs(stderr io.Writer) io.Writer {
	if o.serverLog {
		return stderr
	}
	return nil
}

const usage = `usage: stalkd-bench SCENARIO [flags]

scenarios:
  put         C producers put jobs; -d D keeps D puts in flight per connection
  reserve     preload -n jobs, then C consumers reserve+delete them (-b B per round trip)
  e2e         -p P producers and -c C consumers at once; latency is put-to-reserve
  conns       hold --idle N idle connections, then time commands on a fresh one
  mem         preload -n jobs and report the server's RSS per job (needs --server or --pid)
  connect     C workers each dial (with --tls: handshake), send one command, close, in a loop
  mem-return  RSS idle, after -n puts, after deleting them all, and --settle later (needs --server or --pid)
  serve-echo  run the built-in echo server on -a for --duration
  all         every case of benchmarks/BENCHMARKS.md against one target (--server CMD, or -a ADDR [--pid N])
  compare-all every case against two targets (--server-a CMD --server-b CMD, or -a A --compare B)
  cluster-all put with 1, 100 and 10x64 pipelined clients: a 3-node stalkd cluster through its
              leader against one -b DIR -f0 node, and through a follower against through the
              leader (--server './bin/stalkd -l 127.0.0.1 -p {port}', without -b)

With --server (or --pid) every run also reports the server's CPU time per
operation (utime+stime from /proc over the measured window). In server
templates {port} becomes a free port and {dir} a fresh empty directory per
run (for -b). A template "cluster:leader CMD" or "cluster:follower CMD"
starts three nodes from CMD, each with its own {port}, {dir}, {id} and {raft}
({peers}: all of them as id=raft), and measures the leader's client port or a
follower's. Every run also measures the generator's own ceiling against a
built-in echo server (--no-ceiling to skip). Templates run with sh -c.
--heavy adds the long cases to all and compare-all. Each case without
server flags of its own also runs as NAME-b with the log on (-b {dir}, the
default fsync policy) when the targets are templates.

flags:
`

func parseArgs(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("stalkd-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	c := &o.cfg
	str(fs, &c.Addr, "127.0.0.1:11300", "target host:port (\"echo\": the built-in echo server)", "a", "addr")
	integer(fs, &c.Conns, 1, "connections (put: producers; reserve, e2e: consumers)", "c", "conns")
	integer(fs, &c.Producers, 0, "e2e producer connections (default: -c)", "p", "producers")
	integer(fs, &c.Pipeline, 1, "requests in flight per producer connection", "d", "depth")
	integer(fs, &c.Batch, 1, "reserve: reserve-with-timeout 0 commands per round trip, then as many deletes", "b", "batch")
	integer(fs, &c.Size, 100, "job body bytes", "s", "size")
	integer(fs, &c.Tubes, 1, "tubes to spread the work over", "t", "tubes")
	fs.Float64Var(&c.Rate, "rate", 0, "put, e2e: total puts per second over all producers (default: as fast as possible)")
	fs.DurationVar(&c.Duration, "duration", 0, "measured time bound (default 5s unless -n is given)")
	fs.Int64Var(&c.Jobs, "n", 0, "operation bound; reserve and mem: jobs to preload (reserve default 200000)")
	fs.Int64Var(&c.Jobs, "jobs", 0, "same as -n")
	fs.DurationVar(&c.Warmup, "warmup", 0, "unmeasured run-in before measuring")
	fs.IntVar(&c.Idle, "idle", 1000, "conns: idle connections to hold")
	fs.IntVar(&c.Probes, "probes", 100, "conns: put/reserve/delete cycles on the fresh connection")
	fs.DurationVar(&c.Timeout, "timeout", 0, "hard cap on one run (default duration+warmup+60s)")
	fs.IntVar(&c.PID, "pid", 0, "pid of the target server, for RSS and CPU-per-operation figures")
	fs.IntVar(&c.PID, "server-pid", 0, "same as --pid")
	fs.BoolVar(&c.NoDrain, "no-drain", false, "leave the jobs a run put in the server")
	fs.IntVar(&c.DelayedTubes, "delayed-tubes", 0, "first put one delayed job into each of N other tubes (not timed)")
	fs.BoolVar(&c.WatchAll, "watch-all", false, "reserve, e2e: every consumer watches all -t tubes")
	fs.DurationVar(&c.Settle, "settle", 0, "mem-return: wait this long after deleting before the last RSS reading (default 30s)")
	fs.BoolVar(&o.heavy, "heavy", false, "all, compare-all: also run the heavy cases (100k tubes, 1M-job memory return)")
	fs.StringVar(&o.server, "server", "", "start the target from this command template (with {port})")
	fs.StringVar(&o.compare, "compare", "", "compare against this second address (B)")
	fs.IntVar(&o.comparePID, "compare-pid", 0, "compare: pid of the server at --compare (B), for RSS and CPU figures")
	fs.StringVar(&o.serverA, "server-a", "", "compare: start A from this template, fresh per run")
	fs.StringVar(&o.serverB, "server-b", "", "compare: start B from this template, fresh per run")
	fs.StringVar(&o.cfg.Label, "label", "", "name of the target in reports")
	fs.StringVar(&o.labelA, "label-a", "", "compare: name of A in reports")
	fs.StringVar(&o.labelB, "label-b", "", "compare: name of B in reports")
	fs.IntVar(&o.rounds, "rounds", 3, "compare: rounds of A and B")
	fs.BoolVar(&o.json, "json", false, "print JSON instead of tables")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress line on stderr")
	fs.BoolVar(&o.serverLog, "server-log", false, "pass started servers' output to stderr")
	fs.StringVar(&o.only, "only", "", "all, compare-all: run only the cases whose name contains this")
	fs.StringVar(&o.results, "results", "", "compare-all: also write every case's comparison to this results file (JSON; BENCHMARKS.md's table is generated from one)")
	fs.StringVar(&o.note, "results-note", "", "compare-all --results: a line saying what was measured (builds, disk, pinning)")
	fs.BoolVar(&o.goroutineEcho, "goroutines", false, "serve-echo: one goroutine per connection instead of the epoll loop")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write the generator's CPU profile to this file")
	noCeiling := fs.Bool("no-ceiling", false, "skip the echo-server ceiling run")
	var tlsOpt loadgen.TLSOptions
	fs.BoolVar(&tlsOpt.Enable, "tls", false, "connect over TLS (the handshake is not timed; the ceiling stays plaintext)")
	fs.StringVar(&tlsOpt.CAFile, "tls-ca", "", "--tls: PEM file of the CA to verify the server with (default: system roots)")
	fs.BoolVar(&tlsOpt.Insecure, "tls-insecure", false, "--tls: do not verify the server's certificate")
	fs.StringVar(&tlsOpt.CertFile, "tls-cert", "", "--tls: client certificate (PEM) for mutual TLS")
	fs.StringVar(&tlsOpt.KeyFile, "tls-key", "", "--tls: client key (PEM) for mutual TLS")
	fs.StringVar(&tlsOpt.ServerName, "tls-server-name", "", "--tls: name to verify in the server's certificate (default: the address's host)")
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		o.scenario, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if o.scenario == "" && fs.NArg() > 0 {
		o.scenario = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return nil, err
		}
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.scenario == "" {
		fs.Usage()
		return nil, errors.New("no scenario given")
	}
	o.ceiling = !*noCeiling
	tc, err := loadgen.NewTLSConfig(tlsOpt)
	if err != nil {
		return nil, err
	}
	c.TLS = tc
	c.Scenario = o.scenario
	if !o.quiet {
		c.Progress = os.Stderr
	}
	if o.scenario == "compare-all" && !o.comparing() {
		return nil, errors.New("compare-all needs two targets: --server-a and --server-b, or -a and --compare")
	}
	if o.results != "" && o.scenario != "compare-all" {
		return nil, errors.New("--results is for compare-all")
	}
	if o.scenario == "all" && o.comparing() {
		return nil, errors.New("all runs one target; use compare-all for two")
	}
	if o.comparing() && o.serverB == "" && o.compare == "" {
		return nil, errors.New("comparing needs a B: --compare ADDR_B or --server-b CMD")
	}
	return o, nil
}

// str and integer register one variable under several names (-a and -addr;
// the flag package accepts one or two dashes for each).
func str(fs *flag.FlagSet, p *string, def, help string, names ...string) {
	for _, n := range names {
		fs.StringVar(p, n, def, help)
	}
}

func integer(fs *flag.FlagSet, p *int, def int, help string, names ...string) {
	for _, n := range names {
		fs.IntVar(p, n, def, help)
	}
}
