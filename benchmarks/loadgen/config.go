package loadgen

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// Scenario names accepted by Config.Scenario.
const (
	ScenarioPut     = "put"     // producers put jobs; Pipeline > 1 pipelines them
	ScenarioReserve = "reserve" // preload Jobs, then reserve+delete until drained
	ScenarioE2E     = "e2e"     // Producers put while Conns consumers reserve+delete
	ScenarioConns   = "conns"   // open Idle connections, then probe a fresh one
	ScenarioMem     = "mem"     // preload Jobs and read the server's RSS per job
	// ScenarioMemReturn preloads Jobs, deletes them all, and reads the RSS
	// idle, loaded, drained and Settle later: does memory go back?
	ScenarioMemReturn = "mem-return"
	// ScenarioConnect opens a connection (TLS handshake included when set),
	// sends one command and closes, in a loop: connections per second.
	ScenarioConnect = "connect"
)

// Scenarios lists every scenario name, for usage text and validation.
var Scenarios = []string{ScenarioPut, ScenarioReserve, ScenarioE2E, ScenarioConns, ScenarioMem, ScenarioMemReturn,
	ScenarioConnect}

// Config describes one run. The zero value of every field but Addr and
// Scenario is usable: WithDefaults fills it in. A Config is a value: Run never
// mutates the caller's copy.
type Config struct {
	Addr      string        // target host:port
	Scenario  string        // one of Scenarios
	Conns     int           // put: producers; reserve, e2e: consumers; default 1
	Producers int           // e2e: producer connections; default Conns
	Pipeline  int           // put, e2e producers: requests in flight per connection; default 1
	Batch     int           // reserve: reserve-with-timeout 0 commands per round trip; default 1
	Size      int           // body bytes; default 100 (e2e: at least 8, for the timestamp)
	Tubes     int           // tubes the work is spread over (bench.0 …); default 1
	Rate      float64       // put, e2e: total puts per second over all producers; 0: unpaced
	Duration  time.Duration // measured time bound; default 5s when Jobs is 0
	Jobs      int64         // measured operations bound; reserve and mem: jobs preloaded
	Warmup    time.Duration // unmeasured run-in before the measured window
	Idle      int           // conns: idle connections to hold open; default 1000
	Probes    int           // conns: put+reserve+delete cycles on the fresh connection; default 100
	Timeout   time.Duration // hard cap on the whole run; default Duration+Warmup+60s
	PID       int           // server process for RSS readings (0: none; mem requires it)
	NoDrain   bool          // put: leave the jobs in the server instead of deleting them after
	Progress  io.Writer     // where the progress line goes once a second; nil: nowhere
	Label     string        // name of the target in reports; default Addr
	TLS       *tls.Config   // connect over TLS with this config (see NewTLSConfig); nil: plain TCP

	// DelayedTubes, if > 0, puts one delayed job (1 h) into each of that
	// many other tubes (idle.0 …) before the run, unmeasured, and deletes
	// them after: the cost of the work beside many tubes.
	DelayedTubes int
	// WatchAll makes every consumer (reserve, e2e) watch all Tubes bench
	// tubes instead of its own one: a worker watching many tubes.
	WatchAll bool
	// Settle is how long mem-return waits after deleting everything before
	// its last RSS reading; default 30s.
	Settle time.Duration
}

// Defaults used by WithDefaults.
const (
	defaultDuration   = 5 * time.Second
	defaultReserveJob = 200_000
	defaultMemJobs    = 100_000
	maxPreload        = 8 << 30 // bytes of bodies a preload may put in the server
)

// WithDefaults returns c with every unset field at its default.
func (c Config) WithDefaults() Config {
	c.Conns = max(c.Conns, 1)
	if c.Producers <= 0 {
		c.Producers = c.Conns
	}
	c.Pipeline = max(c.Pipeline, 1)
	c.Batch = max(c.Batch, 1)
	if c.Size <= 0 {
		c.Size = 100
	}
	if c.Scenario == ScenarioE2E {
		c.Size = max(c.Size, stampLen)
	}
	c.Tubes = max(c.Tubes, 1)
	if c.Jobs <= 0 {
		switch c.Scenario {
		case ScenarioReserve:
			c.Jobs = defaultReserveJob
		case ScenarioMem, ScenarioMemReturn:
			c.Jobs = defaultMemJobs
		}
	}
	if c.Duration <= 0 && c.Jobs <= 0 {
		c.Duration = defaultDuration
	}
	if c.Idle <= 0 {
		c.Idle = 1000
	}
	if c.Probes <= 0 {
		c.Probes = 100
	}
	if c.Settle <= 0 {
		c.Settle = defaultSettle
	}
	if c.Timeout <= 0 {
		c.Timeout = c.Duration + c.Warmup + 60*time.Second
	}
	if c.Label == "" {
		c.Label = c.Addr
	}
	return c
}

// Validate reports the first problem with c (after WithDefaults).
func (c Config) Validate() error {
	known := false
	for _, s := range Scenarios {
		known = known || s == c.Scenario
	}
	switch {
	case !known:
		return fmt.Errorf("loadgen: unknown scenario %q (want one of %v)", c.Scenario, Scenarios)
	case c.Addr == "":
		return errors.New("loadgen: no target address")
	case !isLoopback(c.Addr):
		return fmt.Errorf("loadgen: %q is not a loopback address: stalkd-bench only loads this machine", c.Addr)
	case (c.Scenario == ScenarioMem || c.Scenario == ScenarioMemReturn) && c.PID == 0:
		return fmt.Errorf("loadgen: %s needs the server's pid (start it with --server, or pass --pid)", c.Scenario)
	case (c.Scenario == ScenarioReserve || c.Scenario == ScenarioMem || c.Scenario == ScenarioMemReturn) &&
		c.Jobs*int64(c.Size) > maxPreload:
		return fmt.Errorf("loadgen: preloading %d jobs of %d bytes is over %d GiB; lower -n or -s",
			c.Jobs, c.Size, maxPreload>>30)
	case c.Batch > 1<<16 || c.Pipeline > 1<<16:
		return errors.New("loadgen: batch and pipeline are capped at 65536")
	}
	return nil
}

// isLoopback: addr is host:port with host localhost or a loopback IP.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// putSpec is the shape of producer i of n: paced producers are spread
// evenly over the interval, so the total rate is smooth rather than bursts
// of n puts.
func (c Config) putSpec(i, n int, stamp bool) putSpec {
	s := putSpec{size: c.Size, depth: c.Pipeline, stamp: stamp}
	if c.Rate > 0 {
		s.interval = int64(float64(n) * 1e9 / c.Rate)
		s.phase = s.interval * int64(i) / int64(n)
	}
	return s
}

// dial opens one generator connection to the target, over TLS if set.
func (c Config) dial() (*Conn, error) { return DialTLS(c.Addr, 0, c.TLS) }

// consumerTubes are the tubes consumer i watches: its own, or every bench
// tube with WatchAll.
func (c Config) consumerTubes(i int) []string {
	if !c.WatchAll {
		return []string{c.tubeName(i)}
	}
	all := make([]string, c.Tubes)
	for t := range all {
		all[t] = c.tubeName(t)
	}
	return all
}

// tubeName is the tube of connection i.
func (c Config) tubeName(i int) string { return "bench." + strconv.Itoa(i%c.Tubes) }
