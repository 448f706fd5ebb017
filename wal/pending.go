package wal

// recQueue holds the records waiting for a writer in fixed-size blocks,
// so that a burst never copies what was already queued (a growing slice
// would) and the blocks are reused once written. Guarded by Log.mu, except
// for the blocks taken by a writer, which it owns until it recycles them.
type recQueue struct {
	blocks [][]pendingRec
	n      int
	free   [][]pendingRec // cleared blocks ready for reuse
	spare  [][]pendingRec // a list of blocks taken and handed back, for the next take
}

const (
	blockLen   = 512 // records per block
	freeBlocks = 64  // blocks kept for reuse
)

func (q *recQueue) push(p pendingRec) {
	k := len(q.blocks) - 1
	if k < 0 || len(q.blocks[k]) == blockLen {
		var b []pendingRec
		if f := len(q.free) - 1; f >= 0 {
			b, q.free = q.free[f], q.free[:f]
		} else {
			b = make([]pendingRec, 0, blockLen)
		}
		q.blocks = append(q.blocks, b)
		k++
	}
	q.blocks[k] = append(q.blocks[k], p)
	q.n++
}

// take returns every queued block and leaves the queue empty.
func (q *recQueue) take() [][]pendingRec {
	b := q.blocks
	q.blocks, q.spare, q.n = q.spare, nil, 0
	return b
}

// recycle clears the blocks (dropping their references to job bodies) and
// keeps some for reuse.
func (q *recQueue) recycle(blocks [][]pendingRec) {
	for _, b := range blocks {
		clear(b)
		if len(q.free) < freeBlocks {
			q.free = append(q.free, b[:0])
		}
	}
	if q.spare == nil && blocks != nil {
		clear(blocks)
		q.spare = blocks[:0]
	}
}
