package wal

import (
	"github.com/stalkd/stalkd/jobs"
)

// liveJob is one job as the log describes it.
type liveJob struct {
	rec   jobs.Record // a whole record; Body is the job's own copy
	index uint64      // wal index of the job's latest whole record
	size  int64       // bytes that record occupies in its segment
}

// wholeRec notes that entry index holds a whole record of job id. The
// journal keeps these in index order to find the live jobs of the oldest
// segments; an entry is stale once the job is deleted or written again.
type wholeRec struct{ index, id uint64 }

// image is the state of the jobs a log describes, built entry by entry while
// Open scans the segments. Only Open's goroutine uses it.
type image struct {
	jobs     []liveJob        // in order of first appearance; deleted: rec.ID == 0
	pos      map[uint64]int32 // live job id -> position in jobs
	whole    []wholeRec
	maxID    uint64            // highest job id any record or meta mentions
	logStart uint64            // largest first index a meta says the log must hold
	tubes    map[string]string // interned tube names
	orphans  int               // updates and deletes of jobs the log no longer holds
}

func newImage() *image {
	return &image{pos: make(map[uint64]int32), tubes: make(map[string]string)}
}

// apply folds entry index (size bytes in its segment) into the image.
// Puts copy the body; e may point into a buffer that is reused.
func (m *image) apply(e *decoded, index uint64, size int) {
	if e.isMeta {
		m.maxID = max(m.maxID, e.meta.maxID)
		m.logStart = max(m.logStart, e.meta.logStart)
		return
	}
	r := &e.rec
	m.maxID = max(m.maxID, r.ID)
	p, known := m.pos[r.ID]
	switch r.Kind {
	case jobs.RecPut:
		rec := *r
		rec.Tube = m.intern(e.tube)
		rec.Body = append(make([]byte, 0, len(r.Body)), r.Body...)
		j := liveJob{rec: rec, index: index, size: int64(size)}
		if known {
			m.jobs[p] = j
		} else {
			m.pos[r.ID] = int32(len(m.jobs))
			m.jobs = append(m.jobs, j)
		}
		m.whole = append(m.whole, wholeRec{index: index, id: r.ID})
	case jobs.RecUpdate:
		if !known {
			m.orphans++ // its whole record was compacted away
			return
		}
		applyUpdate(&m.jobs[p].rec, r)
	case jobs.RecDelete:
		if !known {
			m.orphans++
			return
		}
		m.jobs[p] = liveJob{}
		delete(m.pos, r.ID)
	}
}

// applyUpdate copies every field of an update but the job's tube and body.
func applyUpdate(dst, u *jobs.Record) {
	dst.State, dst.Pri, dst.Delay, dst.TTR = u.State, u.Pri, u.Delay, u.TTR
	dst.Created, dst.Deadline = u.Created, u.Deadline
	dst.Reserves, dst.Timeouts, dst.Releases, dst.Buries, dst.Kicks = u.Reserves, u.Timeouts, u.Releases, u.Buries, u.Kicks
}

func (m *image) intern(b []byte) string {
	if s, ok := m.tubes[string(b)]; ok {
		return s
	}
	s := string(b)
	m.tubes[s] = s
	return s
}

// live calls fn for each live job in order of first appearance.
func (m *image) live(fn func(j *liveJob)) {
	for i := range m.jobs {
		if m.jobs[i].rec.ID != 0 {
			fn(&m.jobs[i])
		}
	}
}
