package model

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
)

// job is one job of the model's queue.
type job struct {
	key   int    // the put that made it (Input.Job)
	id    uint64 // 0 until a reply told it
	tube  int
	state State
	pri   uint32
	owner int    // reserved: the session holding it; 0 is an orphan (cluster)
	order uint64 // buried, delayed: rank of entry, first in first out

	reserves, releases, buries, kicks uint32
}

// queue is one state of a group: its jobs sorted by key. A queue is never
// changed once built: each step copies it (clone).
type queue struct {
	jobs []job
}

func (q *queue) clone() *queue { return &queue{jobs: slices.Clone(q.jobs)} }

// byKey returns the index of job key, or -1.
func (q *queue) byKey(key int) int {
	i, ok := slices.BinarySearchFunc(q.jobs, key, func(j job, k int) int { return j.key - k })
	if !ok {
		return -1
	}
	return i
}

// byID returns the index of the job with id, or -1 (a job whose id no
// reply told yet has none).
func (q *queue) byID(id uint64) int {
	for i := range q.jobs {
		if q.jobs[i].id == id {
			return i
		}
	}
	return -1
}

// add inserts j in key order.
func (q *queue) add(j job) {
	i, _ := slices.BinarySearchFunc(q.jobs, j.key, func(x job, k int) int { return x.key - k })
	q.jobs = slices.Insert(q.jobs, i, j)
}

func (q *queue) remove(i int) { q.jobs = slices.Delete(q.jobs, i, i+1) }

// enter makes job i the last of its tube's buried or delayed jobs.
func (q *queue) enter(i int, s State) {
	var last uint64
	for _, j := range q.jobs {
		if j.state == BuriedState || j.state == Delayed {
			last = max(last, j.order)
		}
	}
	q.jobs[i].state, q.jobs[i].order, q.jobs[i].owner = s, last+1, 0
}

// normalize renumbers the buried and delayed jobs' order 1..n keeping
// their relative order, so that states reached by different paths compare
// equal.
func (q *queue) normalize() {
	var idx []int
	for i, j := range q.jobs {
		if j.state == BuriedState || j.state == Delayed {
			idx = append(idx, i)
		} else {
			q.jobs[i].order = 0
		}
	}
	slices.SortFunc(idx, func(a, b int) int { return int(q.jobs[a].order) - int(q.jobs[b].order) })
	for r, i := range idx {
		q.jobs[i].order = uint64(r + 1)
	}
}

// better reports whether ready job a is certainly served before b: a
// lower priority number, or the same and a lower id (both known).
func better(a, b *job) bool {
	if a.pri != b.pri {
		return a.pri < b.pri
	}
	return a.id != 0 && b.id != 0 && a.id < b.id
}

// candidates are the ready jobs in tubes (a bit per tube) that no other
// such job is certainly served before: usually one; more only while ids
// are unknown.
func (q *queue) candidates(tubes uint32) []int {
	var in []int
	for i := range q.jobs {
		if q.jobs[i].state == Ready && tubes&(1<<q.jobs[i].tube) != 0 {
			in = append(in, i)
		}
	}
	var out []int
	for _, i := range in {
		best := true
		for _, k := range in {
			if k != i && better(&q.jobs[k], &q.jobs[i]) {
				best = false
				break
			}
		}
		if best {
			out = append(out, i)
		}
	}
	return out
}

// first returns the buried (or delayed) job of tube that entered first, or -1.
func (q *queue) first(tube int, s State) int {
	at := -1
	for i := range q.jobs {
		j := &q.jobs[i]
		if j.tube == tube && j.state == s && (at < 0 || j.order < q.jobs[at].order) {
			at = i
		}
	}
	return at
}

func (q *queue) equal(o *queue) bool { return slices.Equal(q.jobs, o.jobs) }

func (q *queue) hash() uint64 {
	h := fnv.New64a()
	var b [8]byte
	put := func(v uint64) {
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		h.Write(b[:])
	}
	for _, j := range q.jobs {
		put(uint64(j.key))
		put(j.id)
		put(uint64(j.tube)<<40 | uint64(j.state)<<32 | uint64(j.pri))
		put(uint64(j.owner)<<32 | j.order)
		put(uint64(j.reserves)<<48 ^ uint64(j.releases)<<32 ^ uint64(j.buries)<<16 ^ uint64(j.kicks))
	}
	return h.Sum64()
}

func (q *queue) String() string {
	if len(q.jobs) == 0 {
		return "(empty)"
	}
	var parts []string
	for _, j := range q.jobs {
		s := fmt.Sprintf("j%d id=%d t%d %s pri=%d", j.key, j.id, j.tube, j.state, j.pri)
		if j.state == ReservedState {
			s += fmt.Sprintf(" by s%d", j.owner)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
