package loadgen

import "time"

// defaultSettle is how long mem-return waits after the drain before its
// last RSS reading.
const defaultSettle = 30 * time.Second

// runMemReturn asks whether memory goes back: it reads the server's RSS
// idle, after preloading Jobs jobs, right after deleting them all, and
// Settle later. Ops and ops/s are the preload's; the metric is the settled
// RSS.
func runMemReturn(cfg Config) (Result, error) {
	r := newResult(cfg)
	p, err := measurePreload(cfg)
	if err != nil {
		return r, err
	}
	if r.Left, err = drain(cfg, cfg.Jobs); err != nil {
		return r, err
	}
	drained, err := ReadRSS(cfg.PID)
	if err != nil {
		return r, err
	}
	time.Sleep(cfg.Settle)
	settled, err := ReadRSS(cfg.PID)
	if err != nil {
		return r, err
	}
	p.fill(&r)
	r.RSSDrained, r.RSSSettled = drained, settled
	r.SettleSec = cfg.Settle.Seconds()
	return r, nil
}
