package model

// Config says which server the history was recorded against.
type Config struct {
	// Cluster: a raft cluster, whose leader's death leaves its reserved
	// jobs orphans that any connection may finish (see the package doc).
	Cluster bool
}

// step returns every state that may follow q once in was answered out;
// none when out is impossible from q. q is never changed.
func (c Config) step(q *queue, in Input, out Output) []*queue {
	if in.Kind == Close {
		return c.close(q, in.Session)
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
		next = kick(q, in, out)
	case KickJob:
		next = kickJob(q, in, out)
	case Peek, StatsJob:
		next = lookAt(q, in, out)
	case PeekReady, PeekDelayed, PeekBuried:
		next = peekTube(q, in, out)
	}
	if next == nil {
		return nil
	}
	return []*queue{next}
}

// unknown: the operation took effect (with whatever reply the server
// would have sent), or it did not.
func (c Config) unknown(q *queue, in Input) []*queue {
	all := []*queue{q}
	switch in.Kind {
	case Put:
		if q.byKey(in.Job) < 0 {
			all = append(all, put(q, in, Output{Word: Inserted}))
		}
	case Reserve:
		for _, i := range q.candidates(in.Watch) {
			j := q.jobs[i]
			all = append(all, reserve(q, in, Output{Word: Reserved, Job: j.key, ID: j.id}))
		}
	case Delete, Release, Bury, Touch:
		if i := q.byID(in.ID); i >= 0 && (q.jobs[i].state != ReservedState || c.mayFinish(&q.jobs[i], in.Session)) {
			w := map[Kind]Word{Delete: Deleted, Release: Released, Bury: Buried, Touch: Touched}[in.Kind]
			all = append(all, c.finish(q, in, Output{Word: w})...)
		}
	case Kick:
		n := 0
		for i := range q.jobs {
			if j := &q.jobs[i]; j.tube == in.Tube && (j.state == BuriedState || j.state == Delayed) {
				n++
			}
		}
		if n > 0 && in.Count > 0 {
			// KICKED k for whichever k the server would say: try them all.
			for k := 1; k <= min(n, in.Count); k++ {
				if s := kick(q, in, Output{Word: Kicked, Count: k}); s != nil {
					all = append(all, s)
				}
			}
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
// each may instead stay reserved by nobody (its leader died first).
func (c Config) close(q *queue, session int) []*queue {
	var held []int
	for i := range q.jobs {
		if q.jobs[i].state == ReservedState && q.jobs[i].owner == session {
			held = append(held, i)
		}
	}
	if len(held) == 0 {
		return []*queue{q}
	}
	choices := 1
	if c.Cluster {
		choices = 1 << len(held)
	}
	var all []*queue
	for mask := range choices {
		n := q.clone()
		for b, i := range held {
			n.jobs[i].owner = 0
			if mask&(1<<b) == 0 {
				n.jobs[i].state = Ready
			}
		}
		all = append(all, n)
	}
	return all
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
		if in.Timeout < 0 || len(q.candidates(in.Watch)) > 0 {
			return nil
		}
		return q
	case Reserved:
	default:
		return nil
	}
	i := q.byKey(out.Job)
	if i < 0 {
		return nil
	}
	ok := false
	for _, c := range q.candidates(in.Watch) {
		ok = ok || c == i
	}
	if !ok {
		return nil
	}
	n := q.clone()
	if !learn(n, i, out.ID) {
		return nil
	}
	j := &n.jobs[i]
	j.state, j.owner = ReservedState, in.Session
	j.reserves++
	return n
}

// finish is delete, release, bury and touch: on a job reserved by the
// session (or an orphan), and delete on any job not reserved.
func (c Config) finish(q *queue, in Input, out Output) []*queue {
	i := q.byID(in.ID)
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
// first; when none is buried, delayed ones.
func kick(q *queue, in Input, out Output) *queue {
	if out.Word != Kicked {
		return nil
	}
	from := BuriedState
	if q.first(in.Tube, BuriedState) < 0 {
		from = Delayed
	}
	n := q.clone()
	k := 0
	for ; k < in.Count; k++ {
		i := n.first(in.Tube, from)
		if i < 0 {
			break
		}
		n.jobs[i].state, n.jobs[i].order = Ready, 0
		n.jobs[i].kicks++
	}
	if k != out.Count {
		return nil
	}
	n.normalize()
	return n
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
func lookAt(q *queue, in Input, out Output) *queue {
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
		want := JobStats{Tube: j.tube, State: j.state, Pri: j.pri,
			Reserves: j.reserves, Releases: j.releases, Buries: j.buries, Kicks: j.kicks}
		if *out.Stats != want {
			return nil
		}
		return q
	}
	return nil
}

// peekTube is peek-ready, peek-delayed and peek-buried of the used tube.
func peekTube(q *queue, in Input, out Output) *queue {
	var can []int
	switch in.Kind {
	case PeekReady:
		can = q.candidates(1 << in.Tube)
	case PeekDelayed:
		if i := q.first(in.Tube, Delayed); i >= 0 {
			can = []int{i}
		}
	case PeekBuried:
		if i := q.first(in.Tube, BuriedState); i >= 0 {
			can = []int{i}
		}
	}
	if out.Word == NotFound {
		if len(can) == 0 {
			return q
		}
		return nil
	}
	if out.Word != Found {
		return nil
	}
	for _, i := range can {
		if q.jobs[i].key == out.Job {
			n := q.clone()
			if !learn(n, i, out.ID) {
				return nil
			}
			return n
		}
	}
	return nil
}
