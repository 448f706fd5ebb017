package wal

// locTable maps each live job's id to its loc while Open builds the image
// (the Log then keeps a smaller table, jobLocs). The server hands ids out in
// increasing order and most jobs die young, so the live ids crowd a window
// just below the newest one: the table keeps that window as a slice indexed
// by id-base, where a lookup is an index and the log's sequential ids touch
// memory in order, and keeps the few ids left far behind it (a job delayed
// for a day among millions of short ones) in a map. The window never spans
// more than about twice the live ids it holds plus minWindow, so a sparse
// id space costs no more than a map would.
//
// A slot whose size is 0 is empty (every record has a size). The zero value
// is an empty table. Not safe for concurrent use: the Log's mu guards the
// Log's table; Open's goroutine alone uses the image's.
type locTable struct {
	base  uint64         // id of slots[0]
	slots []loc          // the window; size 0 marks an empty slot
	n     int            // live slots in the window
	far   map[uint64]loc // live ids below base
}

// minWindow is the span the window may always have, live ids or not: small
// tables stay one slice.
const minWindow = 4096

// len is the number of live ids.
func (t *locTable) len() int { return t.n + len(t.far) }

// get returns id's loc and whether id is live.
func (t *locTable) get(id uint64) (loc, bool) {
	if id >= t.base {
		if i := id - t.base; i < uint64(len(t.slots)) {
			lc := t.slots[i]
			return lc, lc.size != 0
		}
		return loc{}, false
	}
	lc, ok := t.far[id]
	return lc, ok
}

// set records lc (whose size is not 0) as id's loc.
func (t *locTable) set(id uint64, lc loc) {
	if id < t.base {
		if t.far == nil {
			t.far = make(map[uint64]loc)
		}
		t.far[id] = lc
		return
	}
	if id-t.base >= uint64(len(t.slots)) {
		t.extend(id)
	}
	s := &t.slots[id-t.base]
	if s.size == 0 {
		t.n++
	}
	*s = lc
}

// del forgets id; it reports whether id was live, and its loc.
func (t *locTable) del(id uint64) (loc, bool) {
	if id < t.base {
		lc, ok := t.far[id]
		if ok {
			delete(t.far, id)
			if len(t.far) == 0 {
				t.far = nil // a map never shrinks; a new one is small
			}
		}
		return lc, ok
	}
	i := id - t.base
	if i >= uint64(len(t.slots)) || t.slots[i].size == 0 {
		return loc{}, false
	}
	lc := t.slots[i]
	t.slots[i] = loc{}
	t.n--
	if t.n == 0 { // give a drained window's memory back
		t.base += uint64(len(t.slots))
		t.slots = nil
	}
	return lc, true
}

// extend makes the window reach id (>= base). It first drops the window's
// front where it is empty or more than the allowed span behind id, moving
// the live ids it passes to far, then appends empty slots up to id. Each
// slot is passed once, so the cost is amortized over the sets.
func (t *locTable) extend(id uint64) {
	span := uint64(2*t.n + minWindow)
	skip := 0
	for skip < len(t.slots) {
		s := t.slots[skip]
		if s.size != 0 && id-(t.base+uint64(skip)) < span {
			break
		}
		if s.size != 0 {
			if t.far == nil {
				t.far = make(map[uint64]loc)
			}
			t.far[t.base+uint64(skip)] = s
			t.n--
		}
		skip++
	}
	if skip == len(t.slots) {
		t.slots, t.base = t.slots[:0], id
	} else {
		t.slots, t.base = t.slots[skip:], t.base+uint64(skip)
	}
	need := int(id-t.base) + 1
	if need <= cap(t.slots) && (cap(t.slots) <= minWindow || need > cap(t.slots)/4) {
		old := len(t.slots)
		t.slots = t.slots[:need]
		clear(t.slots[old:])
		return
	}
	// A new array sized for the live window, not for what the old one held
	// (which may be four times more after a drain).
	grown := make([]loc, need, max(need+need/2, minWindow))
	copy(grown, t.slots)
	t.slots = grown
}

// each calls fn for every live id, in no particular order.
func (t *locTable) each(fn func(id uint64, lc loc)) {
	for i, lc := range t.slots {
		if lc.size != 0 {
			fn(t.base+uint64(i), lc)
		}
	}
	for id, lc := range t.far {
		fn(id, lc)
	}
}
