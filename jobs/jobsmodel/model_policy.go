package jobsmodel

import (
	"errors"

	"github.com/stalkd/stalkd/jobs"
)

// This file holds the model's tube policies: max_reserves (bury, or move
// to the dead-letter tube), max_ready with its overflow modes, and the
// policy counters, which belong to the policy (kept when it is replaced,
// gone when it is removed), not to the tube. reserve_rate and schedules
// are timer-driven and tested against the injected clock by the queue's
// own table-driven tests.

// SetPolicy sets (or, for the zero Policy, removes) the policy of tube.
func (m *Model) SetPolicy(tube string, p jobs.Policy) Reply {
	if !validName(tube) {
		return Reply{Err: errPolicy}
	}
	if p.IsZero() {
		delete(m.policies, tube)
		delete(m.counters, tube)
		return Reply{}
	}
	if err := p.Validate(); err != nil || m.cycles(tube, p) {
		return Reply{Err: errPolicy}
	}
	if m.policies == nil {
		m.policies = map[string]jobs.Policy{}
		m.counters = map[string]*jobs.PolicyCounts{}
	}
	m.policies[tube] = p
	if m.counters[tube] == nil {
		m.counters[tube] = &jobs.PolicyCounts{}
	}
	return Reply{}
}

// cycles reports whether giving tube policy p makes a dead-letter chain
// come back to a tube it left (a tube naming itself included), by walking
// each chain for as many steps as there are policies.
func (m *Model) cycles(tube string, p jobs.Policy) bool {
	next := func(name string) string {
		if name == tube {
			return p.DeadLetter
		}
		return m.policies[name].DeadLetter
	}
	for start := range m.policies {
		name := start
		for range len(m.policies) + 1 {
			if name = next(name); name == "" {
				break
			}
			if name == start {
				return true
			}
		}
	}
	for name, n := next(tube), 0; name != "" && n <= len(m.policies); name, n = next(name), n+1 {
		if name == tube {
			return true
		}
	}
	return false
}

// errPolicy stands for any *jobs.PolicyError (the harness maps the
// queue's to it).
var errPolicy = errors.New("policy error")

// full reports whether tube's max_ready is reached.
func (m *Model) full(tube string) bool {
	p, ok := m.policies[tube]
	if !ok || p.MaxReady == 0 {
		return false
	}
	n := 0
	for _, j := range m.jobs {
		if j.tube == tube && (j.state == jobs.Ready || j.state == jobs.Delayed) {
			n++
		}
	}
	return n >= int(p.MaxReady)
}

// overflow handles new job j of a tube at its max_ready, as its policy's
// overflow says: refused, stored buried, or put into the dead-letter tube
// (refused if that one is at its own max_ready).
func (m *Model) overflow(j *mjob) Reply {
	p, c := m.policies[j.tube], m.counters[j.tube]
	switch p.Overflow {
	case jobs.OverflowBury:
		m.jobs[j.id] = j
		m.live = append(m.live, j.id)
		m.tube(j.tube).totalJobs++
		m.total++
		m.seq++
		j.state, j.order, j.buries = jobs.Buried, m.seq, 1
		c.Overflowed++
		return Reply{ID: j.id, Err: jobs.ErrPutBuried}
	case jobs.OverflowDeadLetter:
		if !m.full(p.DeadLetter) {
			j.tube = p.DeadLetter
			m.store(j)
			c.Overflowed++
			return Reply{ID: j.id}
		}
	}
	c.RefusedFull++
	return Reply{ID: j.id, Err: jobs.ErrQueueFull}
}

// exhausted reports whether reserved job j has used up its tube's reserves.
func (m *Model) exhausted(j *mjob) bool {
	p, ok := m.policies[j.tube]
	return ok && p.MaxReserves > 0 && j.reserves >= p.MaxReserves
}

// retire buries or dead-letters reserved job j instead of releasing it or
// timing it out.
func (m *Model) retire(j *mjob, timedOut bool) {
	if timedOut {
		j.timeouts++
	} else {
		j.releases++
	}
	m.counters[j.tube].DeadLettered++
	dl := m.policies[j.tube].DeadLetter
	if dl == "" {
		m.seq++
		j.state, j.reserver, j.order = jobs.Buried, -1, m.seq
		j.buries++
		return
	}
	old := j.tube
	d := m.acquire(dl)
	d.totalJobs++
	j.tube, j.reserves, j.delay = dl, 0, 0 // a new job of the dead-letter tube
	m.gc(old)
	m.makeReady(j)
}
