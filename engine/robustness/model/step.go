package model

import (
	"cmp"
	"slices"
)

// Config says which server the history was recorded against.
type Config struct {
	// Cluster: a raft cluster, whose leader's death leaves its reserved
	// jobs orphans that any connection may finish (see the package doc).
	Cluster bool
}

// step returns every state that may follow q once in was answered out;
// none when out is impossible from q. q is never changed.
func (c Config) step(q *queue, in Input, out Output) []*queue {
	switch in.Kind {
	case Close:
		return c.close(q, in.Session)
	case Restore:
		return c.restore(q)
	}
	if out.Unknown {
		return c.unknown(q, in)
	}
	var next *queue
	switch in.Kind {
	case Put:
		next = put(q, in, out)
	case Reserve:
		next = reserve(q, in, out)
	case Delete, Release, Bury, Touch:
		return c.finish(q, in, out)
	case Kick:
		return kick(q, in, out)
	case KickJob:
		next = kickJob(q, in, out)
	case Peek, StatsJob:
		next = c.lookAt(q, in, out)
	case PeekReady, PeekDelayed, PeekBuried:
		next = peekTube(q, in, out)
	}
	if next == nil {
		return nil
	}
	return []*queue{next}
}

// unknown: the operation took effect (with whatever reply the server
// would have sent), or it did not. A put of unknown outcome adds a job that
// may not exist (one state, not two: a later reply settles it).
func (c Config) unknown(q *queue, in Input) []*queue {
	all := []*queue{q}
	switch in.Kind {
	case Put:
		if q.byKey(in.Job) < 0 {
			n := put(q, in, Output{Word: Inserted})
			n.jobs[n.byKey(in.Job)].maybe, n.jobs[n.byKey(in.Job)].unacked = true, true
			return []*queue{n}
		}
	case Reserve:
		for _, i := range q.candidates(in.Watch) {
			j := q.jobs[i]
			if n := reserve(q, in, Output{Word: Reserved, Job: j.key, ID: j.id}); n != nil {
				all = append(all, n)
			}
		}
	case Delete, Release, Bury, Touch:
		if i := q.byID(in.ID); i >= 0 && (q.jobs[i].state != ReservedState || c.mayFinish(&q.jobs[i], in.Session)) {
			w := map[Kind]Word{Delete: Deleted, Release: Released, Bury: Buried, Touch: Touched}[in.Kind]
			all = append(all, c.finish(q, in, Output{Word: w})...)
		}
	case Kick:
		// KICKED k for whichever k the server would say: try them all.
		for k := 1; k <= in.Count; k++ {
			all = append(all, kick(q, in, Output{Word: Kicked, Count: k})...)
		}
	case KickJob:
		if s := kickJob(q, in, Output{Word: Kicked}); s != nil {
			all = append(all, s)
		}
	}
	return all
}

// mayFinish reports whether session may delete, release, bury or touch
// reserved job j: its own, an orphan, or (in a cluster) one that may have
// become an orphan unseen.
func (c Config) mayFinish(j *job, session int) bool {
	return j.owner == session || j.owner == 0 || c.Cluster
}

// close: the connection's reserved jobs go back to ready; in a cluster
// each may instead stay reserved by nobody (its leader died first): it is
// marked so, and the first reply that tells settles it.
func (c Config) close(q *queue, session int) []*queue {
	n := q.clone()
	for i := range n.jobs {
		if j := &n.jobs[i]; j.state == ReservedState && j.owner == session {
			j.state, j.owner, j.orphan = Ready, 0, c.Cluster
		}
	}
	return []*queue{n}
}

// restore: the buried jobs of each tube may now be in id order (the queue
// was rebuilt from its log), or the rebuild happened at another time. On a
// single node each job whose put was never acknowledged may be gone, even
// if a read saw it: a single node's reads do not wait for the disk, so one
// may show a put in the instant before its write fails (wal/raft/README.md,
// "What is still possible"). An acknowledged put never goes.
func (c Config) restore(q *queue) []*queue {
	all := reorderBuried(q)
	if c.Cluster {
		return all
	}
	for k := range q.jobs {
		if !q.jobs[k].unacked || q.jobs[k].maybe {
			continue // acknowledged, or already free to be absent
		}
		key := q.jobs[k].key
		for _, s := range all {
			n := s.clone()
			n.remove(n.byKey(key))
			n.normalize()
			all = append(all, n)
		}
	}
	return all
}

// reorderBuried: the states after a rebuild from the log, as far as buried
// jobs' order goes: q, and q with each tube's buried jobs in id order.
func reorderBuried(q *queue) []*queue {
	n := q.clone()
	var buried []int
	for i := range n.jobs {
		if n.jobs[i].state == BuriedState {
			buried = append(buried, i)
		}
	}
	if len(buried) < 2 {
		return []*queue{q}
	}
	orders := make([]uint64, len(buried))
	for k, i := range buried {
		orders[k] = n.jobs[i].order
	}
	slices.Sort(orders)
	slices.SortFunc(buried, func(a, b int) int { return cmp.Compare(n.jobs[a].id, n.jobs[b].id) })
	for k, i := range buried {
		n.jobs[i].order = orders[k]
	}
	n.normalize()
	if n.equal(q) {
		return []*queue{q}
	}
	return []*queue{q, n}
}

// learn records that job i has id (a reply said so): false when it had
// another, or another job has it.
func learn(q *queue, i int, id uint64) bool {
	if q.jobs[i].id == id {
		return true
	}
	if q.jobs[i].id != 0 || id == 0 || q.byID(id) >= 0 {
		return false
	}
	q.jobs[i].id = id
	return true
}

func put(q *queue, in Input, out Output) *queue {
	if out.Word != Inserted || q.byKey(in.Job) >= 0 {
		return nil
	}
	if out.ID != 0 && q.byID(out.ID) >= 0 {
		return nil // an id two live jobs share
	}
	n := q.clone()
	j := job{key: in.Job, id: out.ID, tube: in.Tube, state: Ready, pri: in.Pri}
	n.add(j)
	if in.Delayed {
		n.enter(n.byKey(in.Job), Delayed)
	}
	return n
}

func reserve(q *queue, in Input, out Output) *queue {
	switch out.Word {
	case TimedOut:
		if in.Timeout < 0 {
			return nil
		}
		n := q.clone()
		if !n.none(n.ready(in.Watch)) {
			return nil
		}
		return n
	case Reserved:
	default:
		return nil
	}
	i := q.byKey(out.Job)
	if i < 0 || q.jobs[i].state != Ready || in.Watch&(1<<q.jobs[i].tube) == 0 {
		return nil
	}
	n := q.clone()
	if !learn(n, i, out.ID) {
		return nil
	}
	if !n.served(i, in.Watch) {
		// A kick hands each job it moves to a waiting reserve at once, as
		// beanstalkd's does: a reserve that waited may get a kicked job
		// though the same kick then moved a better one.
		if in.Timeout == 0 || q.jobs[i].kicks == 0 {
			return nil
		}
		n = q.clone()
		learn(n, i, out.ID)
		n.jobs[i].maybe, n.jobs[i].orphan = false, false
	}
	i = n.byKey(out.Job)
	j := &n.jobs[i]
	j.state, j.owner = ReservedState, in.Session
	j.reserves++
	return n
}

// finish is delete, release, bury and touch: on a job reserved by the
// session (or an orphan), and delete on any job not reserved.
func (c Config) finish(q *queue, in Input, out Output) []*queue {
	i := q.byID(in.ID)
	if i >= 0 && q.jobs[i].orphan && in.Kind != Delete {
		// Ready or an orphan: NOT_FOUND says ready, success an orphan.
		n := q.clone()
		j := &n.jobs[i]
		j.orphan = false
		if out.Word == NotFound {
			return []*queue{n}
		}
		j.state = ReservedState
		q = n
	}
	if out.Word == NotFound {
		switch {
		case i < 0:
			return []*queue{q}
		case q.jobs[i].state == ReservedState:
			if q.jobs[i].owner != in.Session && (q.jobs[i].owner != 0 || c.Cluster) {
				return []*queue{q} // another's (in a cluster: perhaps not an orphan)
			}
			return nil
		case in.Kind != Delete:
			return []*queue{q} // not reserved: only delete applies
		}
		return nil
	}
	if i < 0 {
		return nil
	}
	j := q.jobs[i]
	if j.state == ReservedState && !c.mayFinish(&j, in.Session) {
		return nil
	}
	if j.state != ReservedState && in.Kind != Delete {
		return nil
	}
	n := q.clone()
	switch {
	case in.Kind == Delete && out.Word == Deleted:
		n.remove(i)
	case in.Kind == Release && out.Word == Released:
		n.jobs[i].state, n.jobs[i].owner, n.jobs[i].pri = Ready, 0, in.Pri
		n.jobs[i].releases++
		if in.Delayed {
			n.enter(i, Delayed)
		}
	case in.Kind == Bury && out.Word == Buried:
		n.jobs[i].pri = in.Pri
		n.jobs[i].buries++
		n.enter(i, BuriedState)
	case in.Kind == Touch && out.Word == Touched:
		n.jobs[i].owner = in.Session // an orphan is adopted
	default:
		return nil
	}
	n.normalize()
	return []*queue{n}
}

// kick moves up to Count buried jobs of the tube to ready, first buried
// first; when none is buried, delayed ones. Delayed jobs that may not
// exist make the count uncertain: each way they may be is tried (buried
// jobs always exist: only a reserved job is buried).
func kick(q *queue, in Input, out Output) []*queue {
	if out.Word != Kicked {
		return nil
	}
	from := BuriedState
	if q.first(in.Tube, BuriedState, false) < 0 {
		from = Delayed
	}
	var maybes []int
	for _, i := range q.inState(in.Tube, from) {
		if q.jobs[i].maybe {
			maybes = append(maybes, i)
		}
	}
	var all []*queue
	for mask := range 1 << min(len(maybes), 8) {
		n := q.clone()
		var gone []int
		for b, i := range maybes {
			if b < 8 && mask&(1<<b) == 0 {
				gone = append(gone, n.jobs[i].key)
			}
		}
		for _, key := range gone {
			n.remove(n.byKey(key))
		}
		k := 0
		for _, i := range n.inState(in.Tube, from) {
			if k == in.Count {
				break
			}
			n.jobs[i].state, n.jobs[i].order, n.jobs[i].maybe = Ready, 0, false
			n.jobs[i].kicks++
			k++
		}
		if k == out.Count {
			n.normalize()
			all = append(all, n)
		}
	}
	return all
}

func kickJob(q *queue, in Input, out Output) *queue {
	i := q.byID(in.ID)
	kickable := i >= 0 && (q.jobs[i].state == BuriedState || q.jobs[i].state == Delayed)
	switch {
	case out.Word == NotFound && !kickable:
		return q
	case out.Word != Kicked || !kickable:
		return nil
	}
	n := q.clone()
	n.jobs[i].state, n.jobs[i].order = Ready, 0
	n.jobs[i].kicks++
	n.normalize()
	return n
}

// lookAt is peek and stats-job: by id.
func (c Config) lookAt(q *queue, in Input, out Output) *queue {
	i := q.byID(in.ID)
	if out.Word == NotFound {
		if i < 0 {
			return q
		}
		return nil
	}
	if i < 0 && in.Kind == Peek && out.Word == Found {
		// A job whose id no reply has told the model yet (its put's
		// outcome is unknown) may be the one.
		if i = q.byKey(out.Job); i < 0 || q.jobs[i].id != 0 {
			return nil
		}
	}
	if i >= 0 && q.jobs[i].maybe {
		return nil // never by id: no reply told its id
	}
	if i < 0 {
		return nil
	}
	j := q.jobs[i]
	switch {
	case in.Kind == Peek && out.Word == Found && out.Job == j.key && out.ID == in.ID:
		n := q.clone()
		if !learn(n, i, in.ID) {
			return nil
		}
		return n
	case in.Kind == StatsJob && out.Word == OK && out.Stats != nil:
		if j.orphan { // its state says which
			n := q.clone()
			n.jobs[i].orphan = false
			if out.Stats.State == ReservedState {
				n.jobs[i].state = ReservedState
			}
			q, j = n, n.jobs[i]
		}
		want := JobStats{Tube: j.tube, State: j.state, Pri: j.pri,
			Reserves: j.reserves, Releases: j.releases, Buries: j.buries, Kicks: j.kicks}
		got := *out.Stats
		if !c.Cluster {
			// A single node does not log reserves (nor does beanstalkd):
			// after a restart the count starts again from the last record.
			got.Reserves, want.Reserves = 0, 0
		}
		if got != want {
			return nil
		}
		return q
	}
	return nil
}

// peekTube is peek-ready, peek-delayed and peek-buried of the used tube.
func peekTube(q *queue, in Input, out Output) *queue {
	n := q.clone()
	if in.Kind == PeekReady {
		switch out.Word {
		case NotFound:
			if n.none(n.ready(1 << in.Tube)) {
				return n
			}
		case Found:
			i := n.byKey(out.Job)
			if i >= 0 && n.jobs[i].state == Ready && n.jobs[i].tube == in.Tube && learn(n, i, out.ID) && n.served(i, 1<<in.Tube) {
				return n
			}
		}
		return nil
	}
	s := Delayed
	if in.Kind == PeekBuried {
		s = BuriedState
	}
	line := n.inState(in.Tube, s)
	switch out.Word {
	case NotFound:
		if n.none(line) {
			return n
		}
		return nil
	case Found:
	default:
		return nil
	}
	// The one found, and before it only jobs that may not exist (they do not).
	for at, i := range line {
		if n.jobs[i].key == out.Job {
			key := n.jobs[i].key
			if !n.none(line[:at]) {
				return nil
			}
			i = n.byKey(key)
			n.jobs[i].maybe = false
			if !learn(n, i, out.ID) {
				return nil
			}
			return n
		}
	}
	return nil
}
