package jobs

import "sync/atomic"

// counter names a server-wide statistic. The first MaxCommands are the
// command counters, indexed as the caller of Session.Count chose.
type counter int

const (
	cUrgent counter = iota + MaxCommands
	cReady
	cReserved
	cDelayed
	cBuried
	cTimeouts
	cTotalJobs
	cConnections
	cProducers
	cWorkers
	cWaiting
	cTotalConnections
	cHeldBytes // job bodies and per-job overhead (Queue.HeldBytes)
	numCounters
)

const stripes = 8

// counters are server-wide statistics split into stripes: each session adds
// to its own stripe, so connections on different cores do not fight over a
// cache line; Stats sums the stripes. Gauges may be negative in one stripe;
// only the sum means anything.
type counters struct {
	s [stripes]stripe
}

type stripe struct {
	v [numCounters]atomic.Int64
	_ [64]byte
}

func (c *counters) add(stripe int, k counter, d int64) { c.s[stripe].v[k].Add(d) }

func (c *counters) sum(k counter) int64 {
	var t int64
	for i := range c.s {
		t += c.s[i].v[k].Load()
	}
	return t
}
