package loadgen

import "fmt"

// Run executes one scenario against cfg.Addr and returns its result. It
// fills in defaults, validates, and always stops by itself: at the Duration
// or Jobs bound, or at the Timeout, when it closes its connections.
// Run may be called from several goroutines with different Configs.
func Run(cfg Config) (Result, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	return withIdleTubes(cfg, run)
}

// run dispatches to the scenario.
func run(cfg Config) (Result, error) {
	switch cfg.Scenario {
	case ScenarioPut:
		return runPut(cfg)
	case ScenarioReserve:
		return runReserve(cfg)
	case ScenarioE2E:
		return runE2E(cfg)
	case ScenarioConns:
		return runConns(cfg)
	case ScenarioMem:
		return runMem(cfg)
	case ScenarioMemReturn:
		return runMemReturn(cfg)
	case ScenarioConnect:
		return runConnect(cfg)
	}
	return Result{}, fmt.Errorf("loadgen: unknown scenario %q", cfg.Scenario)
}

// Labels of the ceiling runs in reports: the echo server in this process, or
// in a process of its own.
const (
	CeilingLabel        = "ceiling (echo)"
	CeilingProcessLabel = "ceiling (echo process)"
)

// HasCeiling reports whether measuring scenario against the echo server
// means anything (not for conns and mem, which measure the server itself).
func HasCeiling(scenario string) bool {
	return scenario == ScenarioPut || scenario == ScenarioReserve || scenario == ScenarioE2E
}

// RunCeiling runs cfg against the echo server: the generator's own ceiling.
// With a template (containing {port}; `stalkd-bench serve-echo` is one) the
// echo runs in a process of its own, like a real server; with "" it runs in
// this process, where its goroutines share the generator's scheduler: on a
// busy machine that read erratically (stalls of a second with 100
// connections), so stalkd-bench uses its own process. Reserve needs a Jobs or Duration bound
// (the echo never runs dry); drain and RSS readings are skipped.
func RunCeiling(cfg Config, template string) (Result, error) {
	cfg = cfg.WithDefaults()
	cfg.Label, cfg.NoDrain, cfg.PID, cfg.DelayedTubes = CeilingLabel, true, 0, 0
	cfg.TLS = nil // the echo server speaks plain TCP: the ceiling is the plaintext one
	if template != "" {
		cfg.Label = CeilingProcessLabel
		srv, err := StartServer(template, nil)
		if err != nil {
			return Result{}, err
		}
		defer srv.Stop()
		cfg.Addr = srv.Addr
		return Run(cfg)
	}
	echo, err := StartEcho("127.0.0.1:0", cfg.Size)
	if err != nil {
		return Result{}, err
	}
	defer echo.Close()
	cfg.Addr = echo.Addr()
	return Run(cfg)
}
