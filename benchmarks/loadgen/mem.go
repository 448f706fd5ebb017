package loadgen

import "time"

// runMem reads the server's RSS, preloads Jobs jobs of Size bytes (64 in
// flight per connection), reads the RSS again and reports the growth per
// job. The preload's throughput is reported as ops/s.
func runMem(cfg Config) (Result, error) {
	r := newResult(cfg)
	before, err := ReadRSS(cfg.PID)
	if err != nil {
		return r, err
	}
	start := time.Now()
	cpu := cpuMeter{pid: cfg.PID}
	cpu.begin()
	if err := preload(cfg, cfg.Jobs); err != nil {
		return r, err
	}
	elapsed := time.Since(start)
	cpu.end()
	after, err := ReadRSS(cfg.PID)
	if err != nil {
		return r, err
	}
	r.Ops, r.RSSBefore, r.RSSAfter = cfg.Jobs, before, after
	r.BytesPerJob = float64(after-before) / float64(cfg.Jobs)
	r.setTiming(elapsed, NewHistogram())
	cpu.fill(&r)
	if !cfg.NoDrain {
		r.Left, err = drain(cfg, cfg.Jobs)
	}
	return r, err
}
