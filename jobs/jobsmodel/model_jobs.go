package jobsmodel

import (
	"slices"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// This file holds the job operations of the model. Every method returns
// what the queue's method of the same name must answer.

// NextID spends an id.
func (m *Model) NextID() uint64 {
	m.nextID++
	return m.nextID - 1
}

// Put adds a job to the used tube of s.
func (m *Model) Put(s int, pri uint32, delay, ttr time.Duration, body string) Reply {
	ss := m.sessions[s]
	id := m.NextID()
	ss.producer = true
	if m.draining {
		return Reply{ID: id, Err: jobs.ErrDraining}
	}
	j := &mjob{id: id, tube: ss.use, body: body, pri: pri, delay: int64(delay),
		ttr: max(int64(ttr), second), created: m.now, reserver: -1}
	if m.full(ss.use) {
		return m.overflow(j)
	}
	m.store(j)
	return Reply{ID: id}
}

// store adds new job j to its tube, delayed or ready as its delay says.
func (m *Model) store(j *mjob) {
	m.jobs[j.id] = j
	m.live = append(m.live, j.id) // ids only grow
	m.acquire(j.tube).totalJobs++
	m.total++
	if j.delay > 0 {
		j.state, j.deadline = jobs.Delayed, m.now+j.delay
	} else {
		m.makeReady(j)
	}
}

// makeReady makes j ready; if its tube is not paused and has a waiter, the
// waiter the round-robin picks gets it at once.
func (m *Model) makeReady(j *mjob) {
	j.state, j.reserver = jobs.Ready, -1
	t := m.tube(j.tube)
	if m.paused(t) || len(t.waiters) == 0 {
		return
	}
	s := t.take()
	m.reserveFor(s, j)
	m.endWait(s, Reply{ID: j.id, Body: j.body})
}

func (m *Model) reserveFor(s int, j *mjob) {
	m.seq++
	j.state, j.reserver, j.order = jobs.Reserved, s, m.seq
	j.deadline = m.now + j.ttr
	j.reserves++
}

// endWait gives a waiting session its outcome: it leaves every waiter set
// and is woken.
func (m *Model) endWait(s int, r Reply) {
	ss := m.sessions[s]
	for _, name := range ss.waitTubes {
		m.tube(name).removeWaiter(s)
	}
	ss.state, ss.outcome, ss.waitTubes, ss.timerAt = delivered, r, nil, 0
	ss.wakes++
}

// own returns the job id if session s reserved it.
func (m *Model) own(s int, id uint64) *mjob {
	if j := m.jobs[id]; j != nil && j.state == jobs.Reserved && j.reserver == s {
		return j
	}
	return nil
}

// Delete removes a job s reserved, or any ready, delayed or buried job.
func (m *Model) Delete(s int, id uint64) Reply {
	j := m.jobs[id]
	if j == nil || (j.state == jobs.Reserved && j.reserver != s) {
		return Reply{Err: jobs.ErrNotFound}
	}
	delete(m.jobs, id)
	i, _ := slices.BinarySearch(m.live, id)
	m.live = slices.Delete(m.live, i, i+1)
	m.tube(j.tube).deletes++
	m.gc(j.tube)
	return Reply{}
}

// Release gives back a job s reserved, with a new priority and delay.
func (m *Model) Release(s int, id uint64, pri uint32, delay time.Duration) Reply {
	j := m.own(s, id)
	if j == nil {
		return Reply{Err: jobs.ErrNotFound}
	}
	if m.exhausted(j) {
		m.retire(j, false)
		return Reply{}
	}
	j.pri, j.delay = pri, int64(delay)
	j.releases++
	if delay > 0 {
		j.state, j.reserver, j.deadline = jobs.Delayed, -1, m.now+int64(delay)
	} else {
		m.makeReady(j)
	}
	return Reply{}
}

// Bury moves a job s reserved to the end of its tube's buried list.
func (m *Model) Bury(s int, id uint64, pri uint32) Reply {
	j := m.own(s, id)
	if j == nil {
		return Reply{Err: jobs.ErrNotFound}
	}
	m.seq++
	j.state, j.reserver, j.pri, j.order = jobs.Buried, -1, pri, m.seq
	j.buries++
	return Reply{}
}

// Touch restarts the TTR of a job s reserved.
func (m *Model) Touch(s int, id uint64) Reply {
	j := m.own(s, id)
	if j == nil {
		return Reply{Err: jobs.ErrNotFound}
	}
	j.deadline = m.now + j.ttr
	return Reply{}
}

// Kick kicks up to n jobs of the used tube: buried ones if there are any,
// else delayed ones.
func (m *Model) Kick(s int, n uint32) Reply {
	tube := m.sessions[s].use
	js := m.jobsIn(tube, jobs.Buried, byOrder)
	if len(js) == 0 {
		js = m.jobsIn(tube, jobs.Delayed, byDeadline)
	}
	js = js[:min(len(js), int(n))]
	for _, j := range js {
		m.kick(j)
	}
	return Reply{N: len(js)}
}

// KickJob kicks one buried or delayed job of any tube.
func (m *Model) KickJob(id uint64) Reply {
	j := m.jobs[id]
	if j == nil || (j.state != jobs.Buried && j.state != jobs.Delayed) {
		return Reply{Err: jobs.ErrNotFound}
	}
	m.kick(j)
	return Reply{}
}

func (m *Model) kick(j *mjob) {
	j.kicks++
	m.makeReady(j)
}

// Peek finds any job by id.
func (m *Model) Peek(id uint64) Reply {
	if j := m.jobs[id]; j != nil {
		return Reply{ID: j.id, Body: j.body}
	}
	return Reply{Err: jobs.ErrNotFound}
}

// PeekState finds the job of the used tube of s that peek-ready (Ready),
// peek-delayed (Delayed) or peek-buried (Buried) shows.
func (m *Model) PeekState(s int, st jobs.State) Reply {
	less := map[jobs.State]func(a, b *mjob) int{jobs.Ready: byPri, jobs.Delayed: byDeadline, jobs.Buried: byOrder}[st]
	if js := m.jobsIn(m.sessions[s].use, st, less); len(js) > 0 {
		return Reply{ID: js[0].id, Body: js[0].body}
	}
	return Reply{Err: jobs.ErrNotFound}
}

// SetDraining turns drain mode on or off.
func (m *Model) SetDraining(on bool) { m.draining = on }

// Count counts a command.
// Count adds one to command counter c.
func (m *Model) Count(c int) { m.cmds[c]++ }
