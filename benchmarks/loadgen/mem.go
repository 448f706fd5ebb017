package loadgen

import "time"

// runMem reads the server's RSS, preloads Jobs jobs of Size bytes (64 in
// flight per connection), reads the RSS again and reports the growth per
// job. The preload's throughput is reported as ops/s.
func runMem(cfg Config) (Result, error) {
	r := newResult(cfg)
	p, err := measurePreload(cfg)
	if err != nil {
		return r, err
	}
	p.fill(&r)
	if !cfg.NoDrain {
		r.Left, err = drain(cfg, cfg.Jobs)
	}
	return r, err
}

// preloadRun is what the memory scenarios measure around a preload.
type preloadRun struct {
	jobs          int64
	before, after int64 // RSS idle and loaded, bytes
	elapsed       time.Duration
	cpu           cpuMeter
}

// measurePreload reads the server's RSS, preloads cfg.Jobs jobs while
// metering the server's CPU, and reads the RSS again.
func measurePreload(cfg Config) (preloadRun, error) {
	p := preloadRun{jobs: cfg.Jobs, cpu: cpuMeter{pid: cfg.PID}}
	var err error
	if p.before, err = ReadRSS(cfg.PID); err != nil {
		return p, err
	}
	start := time.Now()
	p.cpu.begin()
	if err := preload(cfg, cfg.Jobs); err != nil {
		return p, err
	}
	p.elapsed = time.Since(start)
	p.cpu.end()
	p.after, err = ReadRSS(cfg.PID)
	return p, err
}

// fill reports the preload in r: its ops, timing, CPU, the RSS before and
// after, and the growth per job.
func (p *preloadRun) fill(r *Result) {
	r.Ops, r.RSSBefore, r.RSSAfter = p.jobs, p.before, p.after
	r.BytesPerJob = float64(p.after-p.before) / float64(p.jobs)
	r.setTiming(p.elapsed, NewHistogram())
	p.cpu.fill(r)
}
