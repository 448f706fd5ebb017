package jobs

import (
	"math/bits"
	"sync"
)

const indexShards = 64

// index maps job ids to jobs, split into shards with a lock each so that
// lookups from different connections rarely meet. A shard lock is a leaf: it
// is taken under a tube lock (insert, delete) or alone (lookup), and nothing
// is locked while holding it.
//
// Each shard is an open-addressed table of job pointers (the key is the
// job's own id, so a slot costs 8 bytes), probed linearly from a
// multiplicative hash of the id and cleaned by backward shifting, so it
// needs no tombstones. It grows at 3/4 full and shrinks when it falls below
// 1/8 full: a million jobs cost about 12 bytes each here rather than a Go
// map's ~40, and a drained queue gives the table back.
type index struct {
	shards [indexShards]indexShard
}

type indexShard struct {
	mu    sync.RWMutex
	slots []*job // nil or a power of two long
	n     int
	shift uint8   // 64 - log2(len(slots))
	_     [7]byte // 64 bytes: one cache line per shard
}

// minIndexSlots is the smallest table a shard keeps once it has one.
const minIndexSlots = 8

func (x *index) init() {}

func (x *index) shard(id uint64) *indexShard { return &x.shards[id%indexShards] }

// home returns the slot a job id starts probing from. The shard already
// took the low bits (id%indexShards); Fibonacci hashing of the rest spreads
// dense, increasing ids evenly, so that runs stay short.
func (s *indexShard) home(id uint64) int {
	return int(((id / indexShards) * 0x9E3779B97F4A7C15) >> s.shift)
}

func (x *index) get(id uint64) *job {
	s := x.shard(id)
	s.mu.RLock()
	j := s.lookup(id)
	s.mu.RUnlock()
	return j
}

// getTube is get that also reads the job's tube under the shard lock: a job
// read from the index may be deleted and recycled (recycle.go) as soon as
// the lock is released, so nothing of it may be read afterwards until it
// is validated under its tube lock (Queue.lockJob).
func (x *index) getTube(id uint64) (*job, *tube) {
	s := x.shard(id)
	s.mu.RLock()
	j := s.lookup(id)
	var t *tube
	if j != nil {
		t = j.tube
	}
	s.mu.RUnlock()
	return j, t
}

// data returns the id and body of job id, read under the shard lock.
func (x *index) data(id uint64) (JobData, bool) {
	s := x.shard(id)
	s.mu.RLock()
	j := s.lookup(id)
	var d JobData
	if j != nil {
		d = j.data()
	}
	s.mu.RUnlock()
	return d, j != nil
}

func (x *index) put(j *job) {
	s := x.shard(j.id)
	s.mu.Lock()
	s.insert(j)
	s.mu.Unlock()
}

// putNew adds j unless its id is already in the index, in one probe
// sequence (Restore checks and inserts at once).
func (x *index) putNew(j *job) bool {
	s := x.shard(j.id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if (s.n+1)*4 > len(s.slots)*3 {
		s.resize(max(minIndexSlots, len(s.slots)*2))
	}
	mask := len(s.slots) - 1
	i := s.home(j.id)
	for ; s.slots[i] != nil; i = (i + 1) & mask {
		if s.slots[i].id == j.id {
			return false
		}
	}
	s.slots[i] = j
	s.n++
	return true
}

func (x *index) del(id uint64) {
	s := x.shard(id)
	s.mu.Lock()
	s.remove(id)
	s.mu.Unlock()
}

// lookup finds id in the table. s.mu held.
func (s *indexShard) lookup(id uint64) *job {
	if s.n == 0 {
		return nil
	}
	mask := len(s.slots) - 1
	for i := s.home(id); ; i = (i + 1) & mask {
		j := s.slots[i]
		if j == nil || j.id == id {
			return j
		}
	}
}

// insert adds j, whose id is not in the table. s.mu held (write).
func (s *indexShard) insert(j *job) {
	if (s.n+1)*4 > len(s.slots)*3 {
		s.resize(max(minIndexSlots, len(s.slots)*2))
	}
	s.place(j)
	s.n++
}

func (s *indexShard) place(j *job) {
	mask := len(s.slots) - 1
	i := s.home(j.id)
	for s.slots[i] != nil {
		i = (i + 1) & mask
	}
	s.slots[i] = j
}

// remove deletes id if present, shifting back the entries of its run that
// would no longer be found, and shrinks a mostly empty table. s.mu held
// (write).
func (s *indexShard) remove(id uint64) {
	if s.n == 0 {
		return
	}
	mask := len(s.slots) - 1
	i := s.home(id)
	for {
		j := s.slots[i]
		if j == nil {
			return
		}
		if j.id == id {
			break
		}
		i = (i + 1) & mask
	}
	s.slots[i] = nil
	for k := (i + 1) & mask; s.slots[k] != nil; k = (k + 1) & mask {
		h := s.home(s.slots[k].id)
		// The entry at k stays if its home lies cyclically in (i, k].
		if (k-h)&mask < (k-i)&mask {
			continue
		}
		s.slots[i], s.slots[k] = s.slots[k], nil
		i = k
	}
	s.n--
	if len(s.slots) > minIndexSlots && s.n*8 < len(s.slots) {
		s.resize(max(minIndexSlots, len(s.slots)/4))
	}
}

// resize moves every entry into a table of size slots (a power of two).
func (s *indexShard) resize(size int) {
	old := s.slots
	s.slots = make([]*job, size)
	s.shift = uint8(64 - bits.TrailingZeros(uint(size)))
	for _, j := range old {
		if j != nil {
			s.place(j)
		}
	}
}

// each calls fn for every job in the shard. s.mu held.
func (s *indexShard) each(fn func(*job)) {
	for _, j := range s.slots {
		if j != nil {
			fn(j)
		}
	}
}

// len returns the number of jobs in the index (tests).
func (x *index) len() int {
	n := 0
	for i := range x.shards {
		s := &x.shards[i]
		s.mu.RLock()
		n += s.n
		s.mu.RUnlock()
	}
	return n
}

// swap makes id map to nj where it mapped to j (a job moving tube keeps
// its id but is a new job: see deadletter.go).
func (x *index) swap(j, nj *job) {
	s := x.shard(j.id)
	s.mu.Lock()
	defer s.mu.Unlock()
	mask := len(s.slots) - 1
	for i := s.home(j.id); s.slots[i] != nil; i = (i + 1) & mask {
		if s.slots[i] == j {
			s.slots[i] = nj
			return
		}
	}
}
