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
	}
	return Result{}, fmt.Errorf("loadgen: unknown scenario %q", cfg.Scenario)
}

// CeilingLabel names the built-in echo server in reports.
const CeilingLabel = "ceiling (echo)"

// HasCeiling reports whether measuring scenario against the echo server
// means anything (not for conns and mem, which measure the server itself).
func HasCeiling(scenario string) bool {
	return scenario == ScenarioPut || scenario == ScenarioReserve || scenario == ScenarioE2E
}

// RunCeiling runs cfg against an in-process EchoServer: the generator's own
// ceiling on this machine. Reserve needs a Jobs bound or a Duration (the
// echo server never runs dry); drain and RSS readings are skipped.
func RunCeiling(cfg Config) (Result, error) {
	cfg = cfg.WithDefaults()
	echo, err := StartEcho("127.0.0.1:0", cfg.Size)
	if err != nil {
		return Result{}, err
	}
	defer echo.Close()
	cfg.Addr, cfg.Label, cfg.NoDrain, cfg.PID = echo.Addr(), CeilingLabel, true, 0
	return Run(cfg)
}
