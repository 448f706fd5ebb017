package jobsmodel

import (
	"errors"

	"github.com/stalkd/stalkd/jobs"
)

// This file holds the model's tube policies: max_reserves (bury, or move
// to the dead-letter tube) and max_ready. reserve_rate and schedules are
// timer-driven and tested against the injected clock by the queue's own
// table-driven tests.

// policyCounters are a tube's policy counters (gone with the tube).
type policyCounters struct{ deadLettered, refusedFull uint64 }

// SetPolicy sets (or, for the zero Policy, removes) the policy of tube.
func (m *Model) SetPolicy(tube string, p jobs.Policy) Reply {
	if !validName(tube) {
		return Reply{Err: errPolicy}
	}
	if err := p.Validate(); err != nil || p.DeadLetter == tube {
		return Reply{Err: errPolicy}
	}
	if m.policies == nil {
		m.policies = map[string]jobs.Policy{}
	}
	if p.IsZero() {
		delete(m.policies, tube)
	} else {
		m.policies[tube] = p
	}
	return Reply{}
}

// errPolicy stands for any *jobs.PolicyError (the harness maps the
// queue's to it).
var errPolicy = errors.New("policy error")

// full reports whether tube's max_ready refuses a put.
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
	from := m.tube(j.tube)
	from.deadLettered++
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
