package jobs

import (
	"sync/atomic"
	"time"
)

// Stats returns the queue's counters. Each is read atomically, the set is not
// a snapshot: under load the figures may disagree by a few operations.
func (q *Queue) Stats() Stats {
	c := &q.stats
	st := Stats{
		Urgent:           c.sum(cUrgent),
		Ready:            c.sum(cReady),
		Reserved:         c.sum(cReserved),
		Delayed:          c.sum(cDelayed),
		Buried:           c.sum(cBuried),
		JobTimeouts:      uint64(c.sum(cTimeouts)),
		TotalJobs:        uint64(c.sum(cTotalJobs)),
		Tubes:            q.tubes.count(),
		Connections:      c.sum(cConnections),
		Producers:        c.sum(cProducers),
		Workers:          c.sum(cWorkers),
		Waiting:          c.sum(cWaiting),
		TotalConnections: uint64(c.sum(cTotalConnections)),
		Draining:         q.draining.Load(),
	}
	for i := range st.Cmds {
		st.Cmds[i] = uint64(c.sum(counter(i)))
	}
	return st
}

// StatsTube returns the statistics of the tube called name.
func (q *Queue) StatsTube(name []byte) (TubeStats, error) {
	t, err := q.namedTube(name)
	if err != nil {
		return TubeStats{}, err
	}
	info := q.tubeInfo(t)
	return info.TubeStats, nil
}

// HeldBytes returns roughly how much memory the queue's jobs hold: their
// bodies plus a fixed overhead per job. It is a sum of striped counters,
// cheap enough to poll; a server uses it to notice that a large backlog has
// drained and its memory may go back to the operating system.
func (q *Queue) HeldBytes() int64 { return q.stats.sum(cHeldBytes) }

// StatsJob returns the statistics of job id.
func (q *Queue) StatsJob(id uint64) (JobStats, error) {
	now := q.clock.Now()
	t, j := q.lockJob(id)
	if j == nil {
		return JobStats{}, ErrNotFound
	}
	if j.state == 0 {
		t.mu.Unlock()
		return JobStats{}, ErrNotFound
	}
	x := j.r()
	js := JobStats{
		ID: j.id, Tube: t.name, State: j.state, Pri: j.pri,
		Age: time.Duration(now - j.created), Delay: time.Duration(x.delay), TTR: time.Duration(j.ttr),
		Reserves: x.reserves, Timeouts: x.timeouts, Releases: x.releases, Buries: x.buries, Kicks: x.kicks,
	}
	if j.state == Reserved || j.state == Delayed {
		js.TimeLeft = time.Duration(x.deadline - now)
	}
	t.mu.Unlock()
	if q.journal != nil {
		js.File = q.journal.File(id)
	}
	return js, nil
}

// ListTubes appends the names of all tubes to dst, in listing order.
func (q *Queue) ListTubes(dst []string) []string { return q.tubes.names(dst) }

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
