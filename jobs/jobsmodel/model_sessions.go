package jobsmodel

import (
	"math"
	"slices"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// This file holds the model's sessions: tubes used and watched, reserve and
// its waits, close.

// NewSession opens a session using and watching "default".
func (m *Model) NewSession() int {
	m.nextSess++
	m.sessions[m.nextSess] = &msess{use: "default", watch: []string{"default"}}
	m.connections++
	return m.nextSess
}

// Use makes name the used tube of s.
func (m *Model) Use(s int, name string) Reply {
	if !validName(name) {
		return Reply{Err: jobs.ErrBadTubeName}
	}
	ss := m.sessions[s]
	old := ss.use
	ss.use = m.acquire(name).name
	m.gc(old)
	return Reply{}
}

// Watch adds name to the watch list of s.
func (m *Model) Watch(s int, name string) Reply {
	if !validName(name) {
		return Reply{Err: jobs.ErrBadTubeName}
	}
	ss := m.sessions[s]
	if !slices.Contains(ss.watch, name) {
		ss.watch = append(ss.watch, m.acquire(name).name)
	}
	return Reply{N: len(ss.watch)}
}

// Ignore removes name from the watch list of s.
func (m *Model) Ignore(s int, name string) Reply {
	if !validName(name) {
		return Reply{Err: jobs.ErrBadTubeName}
	}
	ss := m.sessions[s]
	i := slices.Index(ss.watch, name)
	switch {
	case i < 0:
		return Reply{N: len(ss.watch)}
	case len(ss.watch) == 1:
		return Reply{Err: jobs.ErrNotIgnored}
	}
	ss.watch = removeAt(ss.watch, i)
	m.gc(name)
	return Reply{N: len(ss.watch)}
}

// Used returns the used tube of s; Watched its watch list.
func (m *Model) Used(s int) string      { return m.sessions[s].use }
func (m *Model) Watched(s int) []string { return slices.Clone(m.sessions[s].watch) }

// reserved returns the jobs s holds, in the order it reserved them.
func (m *Model) reserved(s int) []*mjob {
	js := m.jobsIn("", jobs.Reserved, byOrder)
	return slices.DeleteFunc(js, func(j *mjob) bool { return j.reserver != s })
}

// soonest returns the earliest TTR end of the jobs s holds.
func (m *Model) soonest(s int) (int64, bool) {
	min, ok := int64(math.MaxInt64), false
	for _, j := range m.reserved(s) {
		min, ok = minInt(min, j.deadline), true
	}
	return min, ok
}

func minInt(a, b int64) int64 { return min(a, b) }

// Reserve reserves the best ready job of the watched tubes for s, or
// answers DEADLINE_SOON or TIMED_OUT, or starts a wait (ErrWaiting).
func (m *Model) Reserve(s int, timeout time.Duration) Reply {
	ss := m.sessions[s]
	ss.worker = true
	soonest, holds := m.soonest(s)
	soon := holds && m.now >= soonest-second
	var best *mjob
	anyReady := false
	for _, j := range m.jobsIn("", jobs.Ready, byPri) {
		if !slices.Contains(ss.watch, j.tube) {
			continue
		}
		anyReady = true
		if best == nil && !m.paused(m.tube(j.tube)) {
			best = j
		}
	}
	switch {
	case soon && !anyReady:
		return Reply{Err: jobs.ErrDeadlineSoon}
	case best != nil:
		// The reference serves this reserve as a waiter too: it joins
		// the job's tube's waiter set (where nobody else waits: the tube
		// has a ready job) and ms_take takes it, moving the tube's
		// round-robin cursor.
		t := m.tube(best.tube)
		t.waiters = append(t.waiters, s)
		t.take()
		m.reserveFor(s, best)
		return Reply{ID: best.id, Body: best.body}
	case soon:
		return Reply{Err: jobs.ErrDeadlineSoon}
	case timeout == 0:
		return Reply{Err: jobs.ErrTimedOut}
	}
	ss.state, ss.waitTubes = waiting, slices.Clone(ss.watch)
	for _, name := range ss.watch {
		t := m.tube(name)
		t.waiters = append(t.waiters, s)
	}
	when := int64(math.MaxInt64)
	if timeout > 0 {
		when = m.now + int64(timeout)
	}
	ss.timerSoon = holds && soonest-second <= when
	if ss.timerSoon {
		when = soonest - second
	}
	ss.timerAt = 0
	if when != math.MaxInt64 {
		ss.timerAt = when
	}
	return Reply{Err: jobs.ErrWaiting}
}

// Take collects the outcome of a finished wait.
func (m *Model) Take(s int) Reply {
	ss := m.sessions[s]
	if ss.state != delivered {
		return Reply{Err: jobs.ErrWaiting}
	}
	ss.state = idle
	return ss.outcome
}

// CancelWait ends the pending wait of s without closing it: TIMED_OUT if
// nothing had come yet (and no wake), else the outcome that had come.
func (m *Model) CancelWait(s int) Reply {
	ss := m.sessions[s]
	switch ss.state {
	case waiting:
		for _, name := range ss.waitTubes {
			m.tube(name).removeWaiter(s)
		}
		ss.state, ss.waitTubes, ss.timerAt = idle, nil, 0
	case delivered:
		return m.Take(s)
	}
	return Reply{Err: jobs.ErrTimedOut}
}

// ReserveJob reserves a ready, delayed or buried job of any tube. Only a
// successful one makes s a worker.
func (m *Model) ReserveJob(s int, id uint64) Reply {
	j := m.jobs[id]
	if j == nil || j.state == jobs.Reserved {
		return Reply{Err: jobs.ErrNotFound}
	}
	m.sessions[s].worker = true
	m.reserveFor(s, j)
	return Reply{ID: j.id, Body: j.body}
}

// Close ends session s: its wait is cancelled, its jobs go back to ready
// in the order it reserved them, its watch list is emptied by removing
// item 0 again and again, and then its used tube is let go.
func (m *Model) Close(s int) {
	ss := m.sessions[s]
	if ss.state == waiting {
		for _, name := range ss.waitTubes {
			m.tube(name).removeWaiter(s)
		}
	}
	ss.state = idle
	for _, j := range m.reserved(s) {
		m.makeReady(j)
	}
	for len(ss.watch) > 0 {
		name := ss.watch[0]
		ss.watch = removeAt(ss.watch, 0)
		m.gc(name)
	}
	delete(m.sessions, s)
	m.gc(ss.use)
}
