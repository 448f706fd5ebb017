package jobs

// jobHeap is a binary min-heap of jobs that records each job's position in
// job.heapIdx, so any job can be removed in O(log n). A ready heap orders by
// (pri, id); a delay heap by (deadline, id). Guarded by the tube lock.
type jobHeap struct {
	items      []*job
	byDeadline bool
}

func (h *jobHeap) len() int { return len(h.items) }

func (h *jobHeap) top() *job {
	if len(h.items) == 0 {
		return nil
	}
	return h.items[0]
}

func (h *jobHeap) less(a, b *job) bool {
	if h.byDeadline {
		if a.ext.deadline != b.ext.deadline {
			return a.ext.deadline < b.ext.deadline
		}
	} else if a.pri != b.pri {
		return a.pri < b.pri
	}
	return a.id < b.id
}

func (h *jobHeap) push(j *job) {
	j.heapIdx = int32(len(h.items))
	h.items = append(h.items, j)
	h.up(len(h.items) - 1)
}

func (h *jobHeap) pop() *job {
	j := h.items[0]
	h.remove(j)
	return j
}

func (h *jobHeap) remove(j *job) {
	i := int(j.heapIdx)
	last := len(h.items) - 1
	if i != last {
		h.swap(i, last)
	}
	h.items[last] = nil
	h.items = h.items[:last]
	h.shrink()
	if i != last {
		if !h.down(i) {
			h.up(i)
		}
	}
	j.heapIdx = -1
}

func (h *jobHeap) swap(i, k int) {
	h.items[i], h.items[k] = h.items[k], h.items[i]
	h.items[i].heapIdx = int32(i)
	h.items[k].heapIdx = int32(k)
}

func (h *jobHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.items[i], h.items[p]) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *jobHeap) down(i int) bool {
	start, n := i, len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.less(h.items[r], h.items[l]) {
			m = r
		}
		if !h.less(h.items[m], h.items[i]) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > start
}

// minHeapCap is the capacity below which a heap never gives memory back.
const minHeapCap = 256

// shrink halves the backing array of a heap that fell below a quarter of
// it, so that a drained tube does not keep the array its backlog needed.
// The copy is paid for by the removals that emptied it.
func (h *jobHeap) shrink() {
	if c := cap(h.items); c > minHeapCap && len(h.items) < c/4 {
		h.items = append(make([]*job, 0, c/2), h.items...)
	}
}
