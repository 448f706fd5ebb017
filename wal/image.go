package wal

import (
	"github.com/stalkd/stalkd/jobs"
)

// loc is where a live job's latest whole record is: its wal index and the
// bytes it occupies in its segment. pos is the job's place in image.jobs
// while Open builds the image (unused afterwards).
type loc struct {
	index uint64
	size  uint32
	pos   int32
}

// image is the state of the jobs a log describes, built entry by entry while
// Open scans the segments. Only Open's goroutine uses it; the Log then
// adopts locs as its job index.
type image struct {
	jobs     recordList        // whole records in order of first appearance; deleted: ID 0
	locs     locTable          // live job id -> latest whole record
	live     int64             // sum of the locs' sizes
	maxID    uint64            // highest job id any record or meta mentions
	logStart uint64            // largest first index a meta says the log must hold
	tubes    map[string]string // interned tube names
	orphans  int               // updates and deletes of jobs the log no longer holds
	policies map[string]*imagePolicy
}

// newImage returns an empty image; the records go in chunks allocated as
// they come.
func newImage() *image {
	return &image{tubes: make(map[string]string)}
}

// recordList holds records in fixed-size chunks: appending never copies
// what is there, and no more than one chunk is allocated ahead of use.
type recordList struct {
	chunks [][]jobs.Record
	n      int
}

const recordChunk = 1 << 12

func (rl *recordList) len() int { return rl.n }

func (rl *recordList) at(i int32) *jobs.Record {
	return &rl.chunks[i/recordChunk][i%recordChunk]
}

func (rl *recordList) append(r jobs.Record) {
	if rl.n%recordChunk == 0 {
		rl.chunks = append(rl.chunks, make([]jobs.Record, recordChunk))
	}
	rl.chunks[rl.n/recordChunk][rl.n%recordChunk] = r
	rl.n++
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
	if r.Kind == jobs.RecPolicy {
		m.applyPolicy(r, index)
		return
	}
	if r.Kind == jobs.RecPolicySet {
		m.applyPolicySet(r, index)
		return
	}
	if r.Kind == jobs.RecPut && r.Sched != 0 {
		m.applySched(string(e.tube), r)
	}
	if r.Kind == jobs.RecClear {
		for _, id := range r.IDs {
			m.maxID = max(m.maxID, id)
			m.remove(id)
		}
		return
	}
	var lc loc
	known := false
	if r.ID <= m.maxID { // ids grow: a put of a new id needs no lookup
		lc, known = m.locs.get(r.ID)
	}
	m.maxID = max(m.maxID, r.ID)
	switch r.Kind {
	case jobs.RecPut:
		rec := *r
		rec.Tube = m.intern(e.tube)
		if rec.Dead != nil { // a fresh DeadLetter per decode: its origin may be shared
			rec.Dead.Origin = m.internString(rec.Dead.Origin)
		}
		rec.Body = append(make([]byte, 0, len(r.Body)), r.Body...)
		if known {
			m.live -= int64(lc.size)
			*m.jobs.at(lc.pos) = rec
		} else {
			lc.pos = int32(m.jobs.len())
			m.jobs.append(rec)
		}
		lc.index, lc.size = index, uint32(size)
		m.live += int64(size)
		m.locs.set(r.ID, lc)
	case jobs.RecUpdate:
		if !known {
			m.orphans++ // its whole record was compacted away
			return
		}
		applyUpdate(m.jobs.at(lc.pos), r)
	case jobs.RecDelete:
		if !known {
			m.orphans++
			return
		}
		m.drop(r.ID, lc)
	}
}

// remove forgets job id (a delete or one id of a clear).
func (m *image) remove(id uint64) {
	lc, ok := m.locs.get(id)
	if !ok {
		m.orphans++ // its whole record was compacted away
		return
	}
	m.drop(id, lc)
}

func (m *image) drop(id uint64, lc loc) {
	m.live -= int64(lc.size)
	*m.jobs.at(lc.pos) = jobs.Record{}
	m.locs.del(id)
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

// internString is intern for a name already a string.
func (m *image) internString(s string) string {
	if i, ok := m.tubes[s]; ok {
		return i
	}
	m.tubes[s] = s
	return s
}

// each calls fn for each live job in order of first appearance.
func (m *image) each(fn func(r *jobs.Record)) {
	for _, c := range m.jobs.chunks {
		for i := range c {
			if c[i].ID != 0 {
				fn(&c[i])
			}
		}
	}
}
