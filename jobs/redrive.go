package jobs

// This file holds Redrive: a dead-letter tube's jobs sent back to the tube
// each one came from (its DeadLetter's Origin), or all to one tube, as SQS
// redrive does. Each job moves as MoveJob moves one (move.go): same id,
// body, priority and TTR, a fresh reserve count, no DeadLetter, one
// whole RecPut in the journal per job.

// redriveChunk bounds how many jobs one hold of the two tubes' locks
// moves: long enough to amortize the locking, short enough that the
// tubes' own clients wait microseconds, not a whole redrive.
const redriveChunk = 256

// RedriveRequest says what Redrive moves. A plain value, read once.
type RedriveRequest struct {
	// To, if set, is the tube every job goes to; empty sends each job back
	// to its origin (jobs without one stay: NoOrigin).
	To string
	// Max bounds how many jobs move; 0 or less: all of them.
	Max int
}

// RedriveResult is what a Redrive did: a value the caller owns (ByTube
// is a fresh map).
type RedriveResult struct {
	// Moved counts the jobs moved; ByTube the same per target tube.
	Moved  int
	ByTube map[string]int
	// NoOrigin counts the jobs passed over because they remember no origin
	// (put into the tube by a client, or dead-lettered by a build before
	// origins were kept); only without To. Reserved counts the jobs
	// workers hold (they stay), and Left the ready, delayed and buried
	// jobs still in the tube, both when the redrive ended.
	NoOrigin, Reserved, Left int
	// Changed counts jobs found but reserved or deleted before their turn.
	Changed int
	// Seq is the journal sequence number to wait for before acknowledging.
	Seq uint64
}

// Redrive moves the ready, buried and delayed jobs of the tube called name
// (a dead-letter tube, or any) back to each one's origin tube, or all to
// r.To, at most r.Max of them: ready ones first (about in priority order),
// then buried ones (oldest first), then delayed ones. A ready or buried job
// arrives ready (a redrive is for running the jobs again; a worker waiting
// on the target may take it at once); a delayed one stays delayed until
// the same time there. Reserved jobs are never moved: they belong to their
// workers (and come back to the tube, ready, if released or timed out).
//
// The jobs are chosen in one pass under the tube's lock (as ClearTube
// collects its ids), then moved in chunks of a few hundred per hold of the
// source and target locks. A failure of the journal stops the redrive;
// what moved before it is in the result, with the error. Errors:
// ErrBadTubeName, ErrNotFound (no tube called name), ErrSameTube (r.To is
// name). Safe for concurrent use.
func (q *Queue) Redrive(name string, r RedriveRequest) (res RedriveResult, err error) {
	if !validName([]byte(name)) || (r.To != "" && !validName([]byte(r.To))) {
		return res, ErrBadTubeName
	}
	if r.To == name {
		return res, ErrSameTube
	}
	t := q.tubes.hold([]byte(name))
	if t == nil {
		return res, ErrNotFound
	}
	defer q.releaseTube(t)
	dests, byDest := q.redriveCandidates(t, r, &res)
	res.ByTube = make(map[string]int, len(dests))
	for i, cands := range byDest {
		for len(cands) > 0 && err == nil {
			n := min(len(cands), redriveChunk)
			err = q.redriveChunk(t, dests[i], cands[:n], &res)
			cands = cands[n:]
		}
	}
	t.mu.Lock()
	res.Reserved, res.Left = int(t.reserved), t.ready.len()+t.delayed.len()+t.buried.n
	t.mu.Unlock()
	return res, err
}

// candidate is a job chosen for a redrive: a pointer found under the
// tube lock, a hint to be checked again (stillLive) when its turn comes.
type candidate struct {
	j  *job
	id uint64
}

// redriveCandidates chooses the jobs of t to move, grouped by target tube
// (dests[i] receives byDest[i], in the order chosen). Takes t.mu.
func (q *Queue) redriveCandidates(t *tube, r RedriveRequest, res *RedriveResult) (dests []string, byDest [][]candidate) {
	index := map[string]int{}
	n := 0
	visit := func(j *job) bool {
		to := r.To
		if to == "" {
			d := j.r().dead
			if d == nil || d.Origin == t.name {
				res.NoOrigin++
				return true
			}
			to = d.Origin
		}
		i, ok := index[to]
		if !ok {
			i = len(dests)
			index[to] = i
			dests = append(dests, to)
			byDest = append(byDest, nil)
		}
		byDest[i] = append(byDest[i], candidate{j, j.id})
		n++
		return r.Max <= 0 || n < r.Max
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, j := range t.ready.items {
		if !visit(j) {
			return dests, byDest
		}
	}
	for j := t.buried.head; j != nil; j = j.ext.next {
		if !visit(j) {
			return dests, byDest
		}
	}
	for _, j := range t.delayed.items {
		if !visit(j) {
			return dests, byDest
		}
	}
	return dests, byDest
}

// redriveChunk moves cands, jobs of t chosen earlier, to the tube called
// to under one hold of both locks, skipping those that changed since.
func (q *Queue) redriveChunk(t *tube, to string, cands []candidate, res *RedriveResult) error {
	d := q.tubes.acquire([]byte(to)) // held while moving; each moved job takes its own
	defer q.releaseTube(d)
	var w wakeups
	moved := 0
	var err error
	lockPair(t, d)
	now := q.clock.Now()
	for _, c := range cands {
		j := c.j
		if !q.stillLive(j, c.id) || j.state == 0 || j.state == Reserved {
			res.Changed++
			continue
		}
		state := Ready
		if j.state == Delayed {
			state = Delayed
		}
		var seq uint64
		if seq, err = q.relocate(t, d, j, state, now, 0, &w); err != nil {
			break
		}
		d.refs.Add(1)
		res.Seq = seq
		moved++
	}
	unlockPair(t, d)
	q.finish(&w)
	t.refs.Add(-int64(moved)) // the moved jobs' references; Redrive's hold keeps t alive
	res.Moved += moved
	if moved > 0 {
		res.ByTube[to] += moved
	}
	return err
}
