package jobs

import "slices"

// MaxListJobs is the most ids ListJobs returns in one call.
const MaxListJobs = 1000

// ListJobs appends to dst the ids of the jobs of the tube called name that
// are in state st, in that state's own order, skipping the first offset and
// returning at most count (capped at MaxListJobs):
//
//   - Ready: the order reserve takes them in, priority then id;
//   - Delayed: the order they become ready in, deadline then id;
//   - Buried: the order kick takes them in, oldest bury first;
//   - Reserved: by id.
//
// It returns ErrNotFound when there is no such tube and ErrBadTubeName for an
// invalid name. The listing is a snapshot taken under the tube's lock; the
// work done there is O((offset+count)·log) for ready and delayed jobs and
// O(offset+count) for buried ones. Listing reserved jobs walks the id index
// shard by shard (reservations are kept by session, not by tube), so it
// costs O(jobs in the queue), each shard under the tube's lock briefly.
// Safe for concurrent use.
func (q *Queue) ListJobs(name []byte, st State, offset, count int, dst []uint64) ([]uint64, error) {
	t, err := q.namedTube(name)
	if err != nil {
		return dst, err
	}
	count = min(max(count, 0), MaxListJobs)
	offset = max(offset, 0)
	if count == 0 {
		return dst, nil
	}
	switch st {
	case Ready, Delayed:
		t.mu.Lock()
		h := &t.ready
		if st == Delayed {
			h = &t.delayed
		}
		dst = h.ordered(offset, count, dst)
		t.mu.Unlock()
	case Buried:
		t.mu.Lock()
		j := t.buried.head
		for i := 0; j != nil && i < offset; i++ {
			j = j.ext.next
		}
		for ; j != nil && count > 0; j, count = j.ext.next, count-1 {
			dst = append(dst, j.id)
		}
		t.mu.Unlock()
	case Reserved:
		dst = append(dst, q.reservedIn(t, offset, count)...)
	default:
		return dst, ErrBadState
	}
	return dst, nil
}

// reservedIn returns the ids of t's reserved jobs, sorted, from offset on, at
// most count of them.
func (q *Queue) reservedIn(t *tube, offset, count int) []uint64 {
	t.mu.Lock()
	n := int(t.reserved)
	t.mu.Unlock()
	if n <= offset {
		return nil
	}
	ids := make([]uint64, 0, n)
	for i := range q.jobs.shards {
		sh := &q.jobs.shards[i]
		t.mu.Lock()
		sh.mu.RLock()
		sh.each(func(j *job) {
			if j.tube == t && j.state == Reserved {
				ids = append(ids, j.id)
			}
		})
		sh.mu.RUnlock()
		t.mu.Unlock()
	}
	slices.Sort(ids)
	if offset >= len(ids) {
		return nil
	}
	return ids[offset:min(len(ids), offset+count)]
}

// ordered appends the ids of the heap's jobs in heap order, skipping the
// first skip and taking at most n. It walks the heap as a tree from its
// root, keeping a frontier of candidates ordered by the heap's own order, so
// it touches O(skip+n) jobs whatever the heap's size. Tube lock held.
func (h *jobHeap) ordered(skip, n int, dst []uint64) []uint64 {
	if len(h.items) == 0 {
		return dst
	}
	f := frontier{h: h, idx: []int32{0}}
	for len(f.idx) > 0 && n > 0 {
		i := f.pop()
		if skip > 0 {
			skip--
		} else {
			dst = append(dst, h.items[i].id)
			n--
		}
		for _, c := range [2]int32{2*i + 1, 2*i + 2} {
			if int(c) < len(h.items) {
				f.push(c)
			}
		}
	}
	return dst
}

// frontier is a min-heap of positions in a jobHeap, ordered as the jobHeap.
type frontier struct {
	h   *jobHeap
	idx []int32
}

func (f *frontier) less(a, b int) bool { return f.h.less(f.h.items[f.idx[a]], f.h.items[f.idx[b]]) }

func (f *frontier) push(i int32) {
	f.idx = append(f.idx, i)
	for k := len(f.idx) - 1; k > 0; {
		p := (k - 1) / 2
		if !f.less(k, p) {
			break
		}
		f.idx[k], f.idx[p] = f.idx[p], f.idx[k]
		k = p
	}
}

func (f *frontier) pop() int32 {
	top := f.idx[0]
	last := len(f.idx) - 1
	f.idx[0] = f.idx[last]
	f.idx = f.idx[:last]
	for k := 0; ; {
		l, m := 2*k+1, k
		if l < len(f.idx) && f.less(l, m) {
			m = l
		}
		if r := l + 1; r < len(f.idx) && f.less(r, m) {
			m = r
		}
		if m == k {
			break
		}
		f.idx[k], f.idx[m] = f.idx[m], f.idx[k]
		k = m
	}
	return top
}
