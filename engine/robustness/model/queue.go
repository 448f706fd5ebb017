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
	maybe bool   // its put's outcome is not known: it may not exist
	// orphan: ready, or (in a cluster) reserved by nobody until its TTR:
	// its reserver's connection closed, and the leader may have died
	// first. The first reply that tells settles it.
	orphan bool
	// unacked: its put was never acknowledged (its outcome is not known).
	// On a single node a read may see such a job in the instant before its
	// write fails; a restart then drops it (see restore).
	unacked bool

	reserves, releases, buries, kicks uint32
}

// queue is one state of a group: its jobs sorted by key. A queue is never
// changed once built: each step copies it (clone).
type queue struct {
	jobs []job
	h    uint64 // its hash, once computed (a queue never changes once stepped)
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

// ready returns the ready jobs in tubes (a bit per tube), those that may
// not exist included.
func (q *queue) ready(tubes uint32) []int {
	var in []int
	for i := range q.jobs {
		if q.jobs[i].state == Ready && tubes&(1<<q.jobs[i].tube) != 0 {
			in = append(in, i)
		}
	}
	return in
}

// candidates are the ready jobs in tubes that no other such job certain
// to exist is served before: usually one (plus the jobs that may not
// exist); more only while ids are unknown.
func (q *queue) candidates(tubes uint32) []int {
	in := q.ready(tubes)
	var out []int
	for _, i := range in {
		best := true
		for _, k := range in {
			if k != i && !q.jobs[k].uncertain() && better(&q.jobs[k], &q.jobs[i]) {
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

// uncertain: a job that may not exist, or may not be ready.
func (j *job) uncertain() bool { return j.maybe || j.orphan }

// served checks that job i may be the one served among the ready jobs in
// tubes, and settles the uncertain ones: i exists and is ready, and each
// one served before it does not exist or is an orphan (else it would have
// been served). It returns false when a job certainly ready comes before
// i. q is changed: pass a clone.
func (q *queue) served(i int, tubes uint32) bool {
	var before []int
	for _, k := range q.ready(tubes) {
		if k != i && better(&q.jobs[k], &q.jobs[i]) {
			before = append(before, k)
		}
	}
	q.jobs[i].maybe, q.jobs[i].orphan = false, false
	return q.none(before)
}

// none checks that none of the ready jobs at idx is ready after all: false
// when one certainly is; those that may not exist are dropped, the
// possible orphans become orphans. q is changed: pass a clone.
func (q *queue) none(idx []int) bool {
	var gone []int
	for _, k := range idx {
		switch j := &q.jobs[k]; {
		case j.maybe:
			gone = append(gone, k)
		case j.orphan:
			j.state, j.owner, j.orphan = ReservedState, 0, false
		default:
			return false
		}
	}
	q.drop(gone)
	return true
}

// drop removes the jobs at idx.
func (q *queue) drop(idx []int) {
	slices.Sort(idx)
	for n := len(idx) - 1; n >= 0; n-- {
		q.remove(idx[n])
	}
}

// first returns the buried (or delayed) job of tube that entered first, or
// -1; among those certain to exist when certain.
func (q *queue) first(tube int, s State, certain bool) int {
	at := -1
	for i := range q.jobs {
		j := &q.jobs[i]
		if j.tube == tube && j.state == s && !(certain && j.maybe) && (at < 0 || j.order < q.jobs[at].order) {
			at = i
		}
	}
	return at
}

// inState returns the jobs of tube in state s, in order of entry.
func (q *queue) inState(tube int, s State) []int {
	var idx []int
	for i := range q.jobs {
		if q.jobs[i].tube == tube && q.jobs[i].state == s {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int { return int(q.jobs[a].order) - int(q.jobs[b].order) })
	return idx
}

func (q *queue) equal(o *queue) bool { return slices.Equal(q.jobs, o.jobs) }

func (q *queue) hash() uint64 {
	if q.h == 0 {
		q.h = q.computeHash() | 1
	}
	return q.h
}

func (q *queue) computeHash() uint64 {
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
		if j.maybe {
			put(1)
		}
		if j.orphan {
			put(2)
		}
		if j.unacked {
			put(3)
		}
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
		if j.maybe {
			s += " (maybe)"
		}
		if j.orphan {
			s += " (or an orphan)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}
