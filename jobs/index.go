package jobs

import "sync"

const indexShards = 64

// index maps job ids to jobs, split into shards with a lock each so that
// lookups from different connections rarely meet. A shard lock is a leaf: it
// is taken under a tube lock (insert, delete) or alone (lookup), and nothing
// is locked while holding it.
type index struct {
	shards [indexShards]indexShard
}

type indexShard struct {
	mu sync.RWMutex
	m  map[uint64]*job
	_  [40]byte // keep shards on separate cache lines
}

func (x *index) init() {
	for i := range x.shards {
		x.shards[i].m = make(map[uint64]*job)
	}
}

func (x *index) shard(id uint64) *indexShard { return &x.shards[id%indexShards] }

func (x *index) get(id uint64) *job {
	s := x.shard(id)
	s.mu.RLock()
	j := s.m[id]
	s.mu.RUnlock()
	return j
}

func (x *index) put(j *job) {
	s := x.shard(j.id)
	s.mu.Lock()
	s.m[j.id] = j
	s.mu.Unlock()
}

func (x *index) del(id uint64) {
	s := x.shard(id)
	s.mu.Lock()
	delete(s.m, id)
	s.mu.Unlock()
}
