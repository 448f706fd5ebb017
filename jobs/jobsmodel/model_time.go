package jobsmodel

import (
	"slices"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// PauseTube pauses the tube called name for d (0 means one nanosecond).
func (m *Model) PauseTube(name string, d time.Duration) Reply {
	if !validName(name) {
		return Reply{Err: jobs.ErrBadTubeName}
	}
	t := m.tube(name)
	if t == nil {
		return Reply{Err: jobs.ErrNotFound}
	}
	t.pause = max(int64(d), 1)
	t.unpauseAt = m.now + t.pause
	t.pauses++
	return Reply{}
}

// Advance moves the model's clock by d and fires what came due, like
// Queue.Tick: first job timers, by (time, id) - a delay ends at the
// deadline, a TTR one nanosecond after it; then pauses, by (time, tube
// creation); then the timers of waiting sessions, by (time, session). Each
// order is observable: hand-offs, and the waiter sets' swap-remove.
func (m *Model) Advance(d time.Duration) {
	m.now += int64(d)
	m.fireJobs()
	m.firePauses()
	m.fireWaits()
}

func (m *Model) fireJobs() {
	type due struct {
		when int64
		j    *mjob
	}
	var dues []due
	for _, j := range m.jobs {
		switch {
		case j.state == jobs.Delayed && j.deadline <= m.now:
			dues = append(dues, due{j.deadline, j})
		case j.state == jobs.Reserved && j.deadline < m.now:
			dues = append(dues, due{j.deadline + 1, j})
		}
	}
	slices.SortFunc(dues, func(a, b due) int { return cmpPair(a.when, b.when, a.j.id, b.j.id) })
	for _, x := range dues {
		j := x.j
		switch {
		case j.state == jobs.Delayed && j.deadline <= m.now:
			m.makeReady(j)
		case j.state == jobs.Reserved && j.deadline < m.now:
			m.timeouts++
			if m.exhausted(j) {
				m.retire(j, true)
				continue
			}
			j.timeouts++
			m.makeReady(j)
		}
	}
}

func (m *Model) firePauses() {
	var due []*mtube
	for _, t := range m.tubes {
		if t.pause > 0 && t.unpauseAt <= m.now {
			due = append(due, t)
		}
	}
	slices.SortFunc(due, func(a, b *mtube) int { return cmpPair(a.unpauseAt, b.unpauseAt, a.serial, b.serial) })
	for _, t := range due {
		t.pause = 0
		for len(t.waiters) > 0 {
			js := m.jobsIn(t.name, jobs.Ready, byPri)
			if len(js) == 0 {
				break
			}
			m.makeReady(js[0])
		}
	}
}

func (m *Model) fireWaits() {
	var due []int
	for id, s := range m.sessions {
		if s.state == waiting && s.timerAt != 0 && s.timerAt <= m.now {
			due = append(due, id)
		}
	}
	slices.SortFunc(due, func(a, b int) int {
		return cmpPair(m.sessions[a].timerAt, m.sessions[b].timerAt, uint64(a), uint64(b))
	})
	for _, id := range due {
		err := jobs.ErrTimedOut
		if m.sessions[id].timerSoon {
			err = jobs.ErrDeadlineSoon
		}
		m.endWait(id, Reply{Err: err})
	}
}
