package jobsmodel

import (
	"slices"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// Stats counts everything Queue.Stats reports, by looking at every job and
// session.
func (m *Model) Stats() jobs.Stats {
	st := jobs.Stats{
		Cmds: m.cmds, JobTimeouts: m.timeouts, TotalJobs: m.total, Tubes: len(m.tubes),
		Connections: int64(len(m.sessions)), TotalConnections: m.connections, Draining: m.draining,
	}
	for _, j := range m.jobs {
		st.Urgent += urgent(j)
		switch j.state {
		case jobs.Ready:
			st.Ready++
		case jobs.Reserved:
			st.Reserved++
		case jobs.Delayed:
			st.Delayed++
		case jobs.Buried:
			st.Buried++
		}
	}
	for _, s := range m.sessions {
		st.Producers += b2i(s.producer)
		st.Workers += b2i(s.worker)
		st.Waiting += b2i(s.state == waiting)
	}
	return st
}

func urgent(j *mjob) int64 { return b2i(j.state == jobs.Ready && j.pri < jobs.UrgentPri) }

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// ListTubes returns the tube names in listing order.
func (m *Model) ListTubes() []string {
	names := make([]string, 0, len(m.tubes))
	for _, t := range m.tubes {
		names = append(names, t.name)
	}
	return names
}

// StatsTube counts what stats-tube reports for the tube called name.
func (m *Model) StatsTube(name string) (jobs.TubeStats, error) {
	if !validName(name) {
		return jobs.TubeStats{}, jobs.ErrBadTubeName
	}
	t := m.tube(name)
	if t == nil {
		return jobs.TubeStats{}, jobs.ErrNotFound
	}
	ts := jobs.TubeStats{Name: name, TotalJobs: t.totalJobs, Deletes: t.deletes, Pauses: t.pauses,
		Waiting: int64(len(t.waiters))}
	if c := m.counters[name]; c != nil {
		ts.PolicyCounts = *c
	}
	for _, j := range m.jobs {
		if j.tube != name {
			continue
		}
		ts.Urgent += urgent(j)
		ts.Ready += b2i(j.state == jobs.Ready)
		ts.Reserved += b2i(j.state == jobs.Reserved)
		ts.Delayed += b2i(j.state == jobs.Delayed)
		ts.Buried += b2i(j.state == jobs.Buried)
	}
	for _, s := range m.sessions {
		ts.Using += b2i(s.use == name)
		ts.Watching += b2i(slices.Contains(s.watch, name))
	}
	if t.pause > 0 {
		ts.Pause, ts.PauseLeft = time.Duration(t.pause), time.Duration(t.unpauseAt-m.now)
	}
	return ts, nil
}

// StatsJob reports what stats-job shows for job id.
func (m *Model) StatsJob(id uint64) (jobs.JobStats, error) {
	j := m.jobs[id]
	if j == nil {
		return jobs.JobStats{}, jobs.ErrNotFound
	}
	js := jobs.JobStats{ID: id, Tube: j.tube, State: j.state, Pri: j.pri,
		Age: time.Duration(m.now - j.created), Delay: time.Duration(j.delay), TTR: time.Duration(j.ttr),
		Reserves: j.reserves, Timeouts: j.timeouts, Releases: j.releases, Buries: j.buries, Kicks: j.kicks}
	if j.state == jobs.Reserved || j.state == jobs.Delayed {
		js.TimeLeft = time.Duration(j.deadline - m.now)
	}
	return js, nil
}
