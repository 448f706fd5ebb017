package jobsmodel

import (
	"slices"

	"github.com/stalkd/stalkd/jobs"
)

// ClearTube deletes every ready, delayed and buried job of the tube, the
// obvious way: one job at a time.
func (m *Model) ClearTube(name string) Reply {
	if !validName(name) {
		return Reply{Err: jobs.ErrBadTubeName}
	}
	if m.tube(name) == nil {
		return Reply{Err: jobs.ErrNotFound}
	}
	n := 0
	for _, id := range slices.Clone(m.live) {
		j := m.jobs[id]
		if j.tube != name || j.state == jobs.Reserved {
			continue
		}
		delete(m.jobs, id)
		i, _ := slices.BinarySearch(m.live, id)
		m.live = slices.Delete(m.live, i, i+1)
		n++
	}
	m.gc(name)
	return Reply{N: n}
}

// ListJobs lists the tube's jobs in state st by sorting all of them.
func (m *Model) ListJobs(name string, st jobs.State, offset, count int) ([]uint64, Reply) {
	if !validName(name) {
		return nil, Reply{Err: jobs.ErrBadTubeName}
	}
	if m.tube(name) == nil {
		return nil, Reply{Err: jobs.ErrNotFound}
	}
	less := map[jobs.State]func(a, b *mjob) int{
		jobs.Ready: byPri, jobs.Delayed: byDeadline, jobs.Buried: byOrder,
		jobs.Reserved: func(a, b *mjob) int { return cmpPair(0, 0, a.id, b.id) },
	}[st]
	if less == nil {
		return nil, Reply{Err: jobs.ErrBadState}
	}
	var ids []uint64
	for _, j := range m.jobsIn(name, st, less) {
		ids = append(ids, j.id)
	}
	count = min(count, jobs.MaxListJobs)
	if offset >= len(ids) || count <= 0 {
		return nil, Reply{}
	}
	return ids[offset:min(len(ids), offset+count)], Reply{}
}
