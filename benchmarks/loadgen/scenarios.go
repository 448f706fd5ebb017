package loadgen

import (
	"fmt"
	"sync"
	"time"
)

// runPut: Conns producers, Pipeline puts in flight each, tube i%Tubes.
func runPut(cfg Config) (Result, error) {
	g := newGroup(cfg, cfg.Conns)
	conns, err := dialAll(g, cfg.Conns, func(i int) (*Conn, error) { return dialUsing(cfg, cfg.tubeName(i)) })
	if err != nil {
		return Result{}, err
	}
	defer closeConns(conns)
	elapsed := g.run(func(i int, w *worker) error {
		return putLoop(conns[i], w, g.ctl, cfg.putSpec(i, cfg.Conns, false))
	})
	r := g.collect(elapsed)
	if !cfg.NoDrain {
		var acked int64
		for _, w := range g.workers {
			acked += w.acks.Load()
		}
		r.Left, err = drain(cfg, acked)
	}
	return r, err
}

// runReserve preloads Jobs jobs (unmeasured), then Conns consumers drain
// them in batches of Batch until every tube answers TIMED_OUT.
func runReserve(cfg Config) (Result, error) {
	if err := preload(cfg, cfg.Jobs); err != nil {
		return Result{}, err
	}
	g := newGroup(cfg, cfg.Conns)
	conns, err := dialAll(g, cfg.Conns, func(i int) (*Conn, error) { return dialWatching(cfg, cfg.consumerTubes(i)...) })
	if err != nil {
		return Result{}, err
	}
	defer closeConns(conns)
	elapsed := g.run(func(i int, w *worker) error { return reserveLoop(conns[i], w, g.ctl, cfg.Batch) })
	r := g.collect(elapsed)
	if !cfg.NoDrain {
		r.Left, err = drain(cfg, cfg.Jobs-r.Ops)
	}
	return r, err
}

// runE2E: Producers put stamped jobs (Pipeline in flight each) while Conns
// consumers reserve and delete them; latency is put-to-reserve. Producers
// stop at the bound, consumers when the queue is empty after that.
func runE2E(cfg Config) (Result, error) {
	p := cfg.Producers
	g := newGroup(cfg, p+cfg.Conns)
	g.from = p
	conns, err := dialAll(g, p+cfg.Conns, func(i int) (*Conn, error) {
		if i < p {
			return dialUsing(cfg, cfg.tubeName(i))
		}
		return dialWatching(cfg, cfg.consumerTubes(i-p)...)
	})
	if err != nil {
		return Result{}, err
	}
	defer closeConns(conns)
	st := &e2eState{}
	st.producing.Store(int64(p))
	elapsed := g.run(func(i int, w *worker) error {
		if i < p {
			defer func() { st.put.Add(w.acks.Load()); st.producing.Add(-1) }()
			return putLoop(conns[i], w, g.ctl, cfg.putSpec(i, p, true))
		}
		return consumeLoop(conns[i], w, g.ctl, st)
	})
	r := g.collect(elapsed)
	for _, w := range g.workers[:p] {
		r.Puts += w.ops.Load()
		r.Errors += w.errs
		if w.err != nil && r.FirstError == "" {
			r.FirstError = w.err.Error()
		}
	}
	if !cfg.NoDrain {
		r.Left, err = drain(cfg, st.put.Load()-st.got.Load())
	}
	return r, err
}

// helperConns is how many connections preload and drain use.
func helperConns(cfg Config) int { return min(8, cfg.Tubes) }

// preload puts jobs jobs, spread evenly over the tubes, 64 in flight per
// connection, unmeasured.
func preload(cfg Config, jobs int64) error {
	k := helperConns(cfg)
	return helperRun(cfg, k, func(j int, w *worker, parent *control) error {
		for t := j; t < cfg.Tubes; t += k {
			share := jobs / int64(cfg.Tubes)
			if int64(t) < jobs%int64(cfg.Tubes) {
				share++
			}
			c, err := dialUsing(cfg, cfg.tubeName(t))
			if err != nil {
				return err
			}
			err = putLoop(c, w, newMeasuringControl(share, parent), putSpec{size: cfg.Size, depth: 64})
			c.Close()
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// drain deletes up to limit jobs from the bench tubes (the jobs the run
// left behind) and returns how many are still there: jobs someone else
// holds, or the remains of a server that never runs dry.
func drain(cfg Config, limit int64) (int64, error) {
	if limit <= 0 {
		return countJobs(cfg)
	}
	k := helperConns(cfg)
	var once sync.Once
	var shared *control
	err := helperRun(cfg, k, func(j int, w *worker, parent *control) error {
		once.Do(func() { shared = newMeasuringControl(limit, parent) })
		var tubes []string
		for t := j; t < cfg.Tubes; t += k {
			tubes = append(tubes, cfg.tubeName(t))
		}
		c, err := dialWatching(cfg, tubes...)
		if err != nil {
			return err
		}
		defer c.Close()
		return reserveLoop(c, w, shared, 64)
	})
	if err != nil {
		return 0, err
	}
	return countJobs(cfg)
}

// countJobs sums the jobs in every bench tube.
func countJobs(cfg Config) (int64, error) {
	c, err := cfg.dial()
	if err != nil {
		return 0, err
	}
	defer c.Close()
	var total int64
	for t := range cfg.Tubes {
		n, err := tubeJobs(c, cfg.tubeName(t))
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// helperRun runs k unmeasured workers bounded by the run's hard timeout and
// returns the first error.
func helperRun(cfg Config, k int, fn func(j int, w *worker, parent *control) error) error {
	hc := cfg
	hc.Duration, hc.Warmup, hc.Jobs, hc.Progress, hc.PID = 0, 0, 0, nil, 0
	hc.Timeout = max(cfg.Timeout, time.Minute)
	g := newGroup(hc, k)
	g.run(func(j int, w *worker) error { return fn(j, w, g.ctl) })
	for _, w := range g.workers {
		if w.err != nil {
			return fmt.Errorf("loadgen: preload/drain: %w", w.err)
		}
	}
	return nil
}

// newMeasuringControl grants jobs operations (unbounded if 0) right away,
// until parent stops.
func newMeasuringControl(jobs int64, parent *control) *control {
	c := newControl(jobs)
	c.parent = parent
	c.measure.Store(true)
	return c
}
