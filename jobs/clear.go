package jobs

// clearChunk is how many ids ClearTube removes from one index shard per
// lock: long enough to amortize the lock, short enough that lookups from
// other connections never wait long.
const clearChunk = 4096

// ClearTube deletes every ready, delayed and buried job of the tube called
// name and returns how many it deleted. Reserved jobs are left to their
// workers. The journal gets one record (RecClear listing the ids), not one
// per job; seq is its sequence number, to be acknowledged like any change's.
//
// The tube's heaps and buried list are detached under its lock in one pass;
// the id index is then cleaned in bounded chunks with no tube lock held, so
// other tubes and lookups are never held up for long, even for a million
// jobs. The jobs are unreachable (the index no longer has them) before
// ClearTube returns. It returns ErrNotFound when there is no such tube,
// ErrBadTubeName for an invalid name, or the journal's error, in which case
// nothing changed. Safe for concurrent use.
func (q *Queue) ClearTube(name []byte) (n int, seq uint64, err error) {
	if !validName(name) {
		return 0, 0, ErrBadTubeName
	}
	t := q.tubes.hold(name)
	if t == nil {
		return 0, 0, ErrNotFound
	}
	defer q.releaseTube(t)

	t.mu.Lock()
	ids := make([]uint64, 0, t.ready.len()+t.delayed.len()+t.buried.n)
	for _, j := range t.ready.items {
		ids = append(ids, j.id)
	}
	for _, j := range t.delayed.items {
		ids = append(ids, j.id)
	}
	for j := t.buried.head; j != nil; j = j.ext.next {
		ids = append(ids, j.id)
	}
	if len(ids) == 0 {
		t.mu.Unlock()
		return 0, 0, nil
	}
	seq, err = q.append(Record{Kind: RecClear, Tube: t.name, IDs: ids})
	if err != nil {
		t.mu.Unlock()
		return 0, 0, err
	}
	q.detachAll(t)
	t.mu.Unlock()

	q.unindex(ids)
	t.refs.Add(-int64(len(ids))) // the jobs' references; ours keeps t alive
	return len(ids), seq, nil
}

// detachAll takes every ready, delayed and buried job off t, marks them
// deleted and settles the counters. t.mu held.
func (q *Queue) detachAll(t *tube) {
	var held int64
	for _, j := range t.ready.items {
		held += j.held()
		j.state, j.heapIdx = 0, -1
	}
	q.stats.add(0, cReady, -int64(t.ready.len()))
	q.stats.add(0, cUrgent, -t.urgent)
	t.urgent = 0
	t.ready.items = nil

	for _, j := range t.delayed.items {
		q.timers.cancelJob(j)
		held += j.held()
		j.state, j.heapIdx = 0, -1
	}
	q.stats.add(0, cDelayed, -int64(t.delayed.len()))
	t.delayed.items = nil

	for j := t.buried.head; j != nil; {
		next := j.ext.next
		held += j.held()
		j.state, j.ext.prev, j.ext.next = 0, nil, nil
		j = next
	}
	q.stats.add(0, cBuried, -int64(t.buried.n))
	t.buried = jobList{}
	q.stats.add(0, cHeldBytes, -held)
}

// unindex removes ids from the id index, a bounded chunk per shard lock.
func (q *Queue) unindex(ids []uint64) {
	var byShard [indexShards][]uint64
	for _, id := range ids {
		s := id % indexShards
		byShard[s] = append(byShard[s], id)
	}
	for i, list := range byShard {
		sh := &q.jobs.shards[i]
		for len(list) > 0 {
			k := min(len(list), clearChunk)
			sh.mu.Lock()
			for _, id := range list[:k] {
				sh.remove(id)
			}
			sh.mu.Unlock()
			list = list[k:]
		}
	}
}
