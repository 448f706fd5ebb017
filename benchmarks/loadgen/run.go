package loadgen

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// control is shared by the workers of one run. Workers poll it between round
// trips; the coordinator flips it. Every field is atomic.
type control struct {
	stop    atomic.Bool  // no new requests
	measure atomic.Bool  // warmup is over: claimed work counts
	killed  atomic.Bool  // hard timeout: connections were closed under the workers
	t0      atomic.Int64 // nanotime when measuring began
	budget  atomic.Int64 // measured operations still allowed
	parent  *control     // if set, its stop stops this one too (preload, drain)
}

func newControl(jobs int64) *control {
	c := &control{}
	if jobs <= 0 {
		jobs = math.MaxInt64
	}
	c.budget.Store(jobs)
	return c
}

// claim asks for up to n operations. It returns how many to issue and whether
// they count; 0 means the worker must stop issuing.
func (c *control) claim(n int) (granted int, counted bool) {
	if c.stopped() {
		return 0, false
	}
	if !c.measure.Load() {
		return n, false
	}
	left := c.budget.Add(int64(-n))
	if left >= 0 {
		return n, true
	}
	if got := int64(n) + left; got > 0 {
		return int(got), true
	}
	return 0, false
}

// stopped reports whether workers must stop issuing requests.
func (c *control) stopped() bool {
	return c.stop.Load() || (c.parent != nil && c.parent.stop.Load())
}

// take deducts n finished operations from the budget, for loops that cannot
// know in advance how many of their requests will find work (reserve). It
// returns how many of the n fit and whether the budget is now spent.
func (c *control) take(n int) (fit int, spent bool) {
	left := c.budget.Add(int64(-n))
	if left > 0 {
		return n, false
	}
	return max(int(int64(n)+left), 0), true
}

// worker is the per-connection tally. The owning goroutine writes everything;
// the coordinator reads ops (atomic) while running and the rest after wait.
type worker struct {
	ops  atomic.Int64 // counted operations so far
	acks atomic.Int64 // puts acknowledged, counted or not (e2e bookkeeping)
	hist *Histogram
	errs int64
	err  error // first error (reply or I/O)
	end  int64 // nanotime when this worker last counted an operation
	_    [64]byte
}

func (w *worker) count(n int) {
	w.ops.Add(int64(n))
	w.end = nanotime()
}

// fail notes an unexpected reply; the line is copied.
func (w *worker) fail(r Reply) {
	w.errs++
	if w.err == nil {
		w.err = fmt.Errorf("unexpected reply %q", r.Line)
	}
}

// group runs n workers under one control, with a warmup, a duration, a
// progress line and a hard timeout that closes the connections it tracks.
type group struct {
	cfg     Config
	ctl     *control
	workers []*worker
	from    int // workers [from:] are the ones the progress line and collect count
	mu      sync.Mutex
	conns   []*Conn
	cpu     cpuMeter // the server's CPU over the measured window (coordinator's)
}

func newGroup(cfg Config, n int) *group {
	g := &group{cfg: cfg, ctl: newControl(cfg.Jobs), workers: make([]*worker, n), cpu: cpuMeter{pid: cfg.PID}}
	for i := range g.workers {
		g.workers[i] = &worker{hist: NewHistogram()}
	}
	return g
}

// track registers a connection to close on a hard timeout.
func (g *group) track(c *Conn) {
	g.mu.Lock()
	g.conns = append(g.conns, c)
	g.mu.Unlock()
}

func (g *group) closeAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range g.conns {
		c.Close()
	}
}

// run starts fn once per worker and returns when all have returned, with the
// measured time: from the end of the warmup to the last counted operation.
func (g *group) run(fn func(i int, w *worker) error) (elapsed time.Duration) {
	done := make(chan struct{})
	if g.cfg.Warmup <= 0 {
		g.startMeasuring() // before any worker can claim unmeasured work
	}
	var wg sync.WaitGroup
	for i, w := range g.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(i, w); err != nil && w.err == nil && !g.ctl.killed.Load() {
				w.err, w.errs = err, w.errs+1
			}
		}()
	}
	go func() { wg.Wait(); close(done) }()
	g.supervise(done)
	g.cpu.end()
	var end int64
	for _, w := range g.workers {
		end = max(end, w.end)
	}
	if t0 := g.ctl.t0.Load(); end > t0 {
		return time.Duration(end - t0)
	}
	return 0
}

// supervise drives the phases until done is closed.
func (g *group) supervise(done chan struct{}) {
	hard := time.NewTimer(g.cfg.Timeout)
	defer hard.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	start := time.Now()
	var measureAt, stopAt <-chan time.Time
	measureFor := func() { // the measured window runs from when measuring actually began
		if g.cfg.Duration > 0 {
			stopAt = time.After(g.cfg.Duration)
		}
	}
	if g.cfg.Warmup > 0 {
		measureAt = time.After(g.cfg.Warmup)
	} else {
		measureFor()
	}
	last := progressMark{at: start}
	for {
		select {
		case <-done:
			g.progress(start, &last, true)
			return
		case <-measureAt:
			g.startMeasuring()
			measureFor()
		case <-stopAt:
			g.ctl.stop.Store(true)
		case <-hard.C:
			g.ctl.killed.Store(true)
			g.ctl.stop.Store(true)
			g.closeAll()
		case <-tick.C:
			g.progress(start, &last, false)
		}
	}
}

// startMeasuring opens the measured window. Called by the coordinator only.
func (g *group) startMeasuring() {
	g.cpu.begin()
	g.ctl.t0.Store(nanotime())
	g.ctl.measure.Store(true)
}

func (g *group) ops() int64 {
	var n int64
	for _, w := range g.workers[g.from:] {
		n += w.ops.Load()
	}
	return n
}

// progressMark is the previous progress line's count and time.
type progressMark struct {
	ops int64
	at  time.Time
}

// progress writes the one-line status; final ends the line.
func (g *group) progress(start time.Time, last *progressMark, final bool) {
	out := g.cfg.Progress
	if out == nil {
		return
	}
	n, now := g.ops(), time.Now()
	phase := "run"
	if !g.ctl.measure.Load() {
		phase = "warmup"
	} else if g.ctl.stop.Load() {
		phase = "drain"
	}
	rate := float64(n-last.ops) / max(now.Sub(last.at).Seconds(), 1e-3)
	fmt.Fprintf(out, "\r%-8s %-6s %6.1fs %12d ops %10.0f ops/s  ", g.cfg.Scenario, phase,
		now.Sub(start).Seconds(), n, rate)
	*last = progressMark{ops: n, at: now}
	if final {
		fmt.Fprintln(out)
	}
}

// collect merges the workers' tallies into a Result.
func (g *group) collect(elapsed time.Duration) Result {
	r := newResult(g.cfg)
	h := NewHistogram()
	for _, w := range g.workers[g.from:] {
		r.Ops += w.ops.Load()
		r.Errors += w.errs
		if w.err != nil && r.FirstError == "" {
			r.FirstError = w.err.Error()
		}
		h.Merge(w.hist)
	}
	r.setTiming(elapsed, h)
	g.cpu.fill(&r)
	return r
}
