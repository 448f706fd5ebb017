package wal

// jobLocs maps each live job's id to its latest whole record: the record's
// wal index and its size in the segment, in 8 bytes a job. It is the only
// memory the journal keeps per job (a server with a million jobs keeps 8 MB
// here), so it is laid out for that:
//
//   - ids are handed out in increasing order and most jobs die young, so the
//     live ids crowd a window just below the newest one: the window is a
//     list of fixed chunks of locChunk slots indexed by id-base. A lookup
//     is two indexes; growing never copies (no garbage, as a slice grown by
//     append would make); a chunk whose ids all died is dropped.
//   - a slot holds the index as an offset from idxBase in 32 bits, and the
//     size. Live records always lie in the log, so when an offset no longer
//     fits the table rebases on the log's first index (floor), once per 2^32
//     entries written; an index still out of reach goes to far.
//   - the few ids left far behind the window (a job delayed for a day
//     among millions of short ones) move to a map, far, so that the window
//     never spans more than about twice the live ids it holds plus
//     minLocWindow, and a sparse id space costs no more than a map would.
//
// The zero value is an empty table. Not safe for concurrent use: the Log's
// mu guards it.
type jobLocs struct {
	base    uint64            // id of chunks[0][0]
	chunks  [][]locSlot       // nil: a chunk with no live id
	counts  []int32           // live slots per chunk
	n       int               // live slots in the chunks
	far     map[uint64]farLoc // live ids not in the chunks
	idxBase uint64            // a slot's index is idxBase + off
	floor   uint64            // no live record has an index below it (the log's first)
}

// locSlot is one id's place in a chunk; size 0 marks an empty slot (every
// record has a size).
type locSlot struct{ off, size uint32 }

// farLoc is a place kept in jobLocs.far.
type farLoc struct {
	index uint64
	size  uint32
}

const (
	locChunk = 4096
	// minLocWindow is the span the window may always have, live ids or not.
	minLocWindow = 4 * locChunk
)

// len is the number of live ids.
func (t *jobLocs) len() int { return t.n + len(t.far) }

// slot returns id's slot in the window, or nil when id is outside the
// window or its chunk is gone.
func (t *jobLocs) slot(id uint64) *locSlot {
	if id < t.base {
		return nil
	}
	i := id - t.base
	if c := i / locChunk; c < uint64(len(t.chunks)) && t.chunks[c] != nil {
		return &t.chunks[c][i%locChunk]
	}
	return nil
}

// get returns the index and size of id's latest whole record, and whether
// id is live.
func (t *jobLocs) get(id uint64) (index uint64, size uint32, ok bool) {
	if s := t.slot(id); s != nil && s.size != 0 {
		return t.idxBase + uint64(s.off), s.size, true
	}
	if t.far != nil {
		if f, ok := t.far[id]; ok {
			return f.index, f.size, true
		}
	}
	return 0, 0, false
}

// set records the latest whole record of id (size > 0) and returns the
// size of the one it replaces (0: id was not live).
func (t *jobLocs) set(id, index uint64, size uint32) (old uint32) {
	if t.far != nil {
		if f, ok := t.far[id]; ok {
			t.far[id] = farLoc{index: index, size: size}
			return f.size
		}
	}
	if id < t.base {
		t.setFar(id, index, size)
		return 0
	}
	if index < t.idxBase || index-t.idxBase > maxOff {
		t.rebase(index)
		if index < t.idxBase || index-t.idxBase > maxOff {
			old, _ = t.del(id)
			t.setFar(id, index, size)
			return old
		}
	}
	s := t.slot(id)
	if s == nil {
		t.extend(id)
		s = t.slot(id)
	}
	old = s.size
	if old == 0 {
		t.n++
		t.counts[(id-t.base)/locChunk]++
	}
	*s = locSlot{off: uint32(index - t.idxBase), size: size}
	return old
}

const maxOff = 1<<32 - 1

func (t *jobLocs) setFar(id, index uint64, size uint32) {
	if t.far == nil {
		t.far = make(map[uint64]farLoc)
	}
	t.far[id] = farLoc{index: index, size: size}
}

// del forgets id; it reports the size of its record and whether id was
// live.
func (t *jobLocs) del(id uint64) (uint32, bool) {
	if s := t.slot(id); s != nil && s.size != 0 {
		size := s.size
		*s = locSlot{}
		t.n--
		c := (id - t.base) / locChunk
		if t.counts[c]--; t.counts[c] == 0 {
			t.dropChunk(int(c))
		}
		return size, true
	}
	if t.far != nil {
		if f, ok := t.far[id]; ok {
			delete(t.far, id)
			if len(t.far) == 0 {
				t.far = nil // a map never shrinks; a new one is small
			}
			return f.size, true
		}
	}
	return 0, false
}

// dropChunk gives an emptied chunk's memory back, and trims the window's
// ends past chunks that are gone.
func (t *jobLocs) dropChunk(c int) {
	t.chunks[c] = nil
	n := len(t.chunks)
	for n > 0 && t.chunks[n-1] == nil {
		n--
	}
	t.chunks, t.counts = t.chunks[:n], t.counts[:n]
	k := 0
	for k < len(t.chunks) && t.chunks[k] == nil {
		k++
	}
	if k > 0 {
		t.trimFront(k)
	}
}

// trimFront drops the first k chunks (empty or already moved to far).
func (t *jobLocs) trimFront(k int) {
	n := copy(t.chunks, t.chunks[k:])
	clear(t.chunks[n:])
	t.chunks = t.chunks[:n]
	copy(t.counts, t.counts[k:])
	t.counts = t.counts[:n]
	t.base += uint64(k) * locChunk
}

// extend makes the window reach id (>= base), first moving the live ids of
// front chunks more than the allowed span behind id to far.
func (t *jobLocs) extend(id uint64) {
	span := uint64(2*t.n + minLocWindow)
	k := 0
	for k < len(t.chunks) && t.base+uint64(k+1)*locChunk <= id && id-(t.base+uint64(k+1)*locChunk) >= span {
		for i, s := range t.chunks[k] {
			if s.size != 0 {
				t.setFar(t.base+uint64(k)*locChunk+uint64(i), t.idxBase+uint64(s.off), s.size)
				t.n--
			}
		}
		t.chunks[k] = nil
		k++
	}
	if k > 0 {
		t.trimFront(k)
	}
	if len(t.chunks) == 0 {
		t.base = id - id%locChunk
	}
	for c := int((id - t.base) / locChunk); len(t.chunks) <= c; {
		t.chunks = append(t.chunks, nil)
		t.counts = append(t.counts, 0)
	}
	if c := (id - t.base) / locChunk; t.chunks[c] == nil {
		t.chunks[c] = make([]locSlot, locChunk)
	}
}

// rebase moves idxBase to floor, so that the newest index fits again (each
// live record lies at or after floor). O(live ids), once per 2^32 entries.
func (t *jobLocs) rebase(index uint64) {
	nb := t.floor
	if nb <= t.idxBase || index < nb {
		return
	}
	d := nb - t.idxBase
	for _, c := range t.chunks {
		for i := range c {
			if c[i].size != 0 {
				c[i].off -= uint32(d)
			}
		}
	}
	t.idxBase = nb
}

// each calls fn for every live id whose id lies in [lo, hi) of the window,
// then, with far set, for every id in far. fn must not change the table.
func (t *jobLocs) each(lo, hi uint64, far bool, fn func(id, index uint64, size uint32)) {
	lo = max(lo, t.base)
	for id := lo; id < hi; {
		i := id - t.base
		c := i / locChunk
		if c >= uint64(len(t.chunks)) {
			break
		}
		if t.chunks[c] == nil {
			id = t.base + (c+1)*locChunk
			continue
		}
		if s := t.chunks[c][i%locChunk]; s.size != 0 {
			fn(id, t.idxBase+uint64(s.off), s.size)
		}
		id++
	}
	if far {
		for id, f := range t.far {
			fn(id, f.index, f.size)
		}
	}
}

// end is one past the highest id the window may hold.
func (t *jobLocs) end() uint64 { return t.base + uint64(len(t.chunks))*locChunk }
