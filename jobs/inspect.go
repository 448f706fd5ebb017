package jobs

import "time"

// Read-only views: Peek and the peek-* commands (at the end), and for
// monitoring (package engine/admin) every tube's figures in one pass, the
// age of each tube's oldest ready job, the journal's health and the queue's
// clock. Nothing here changes the queue or
// adds work to the command path; each tube lock is held only for a bounded
// stretch.

// oldestScanChunk bounds how many ready jobs Inspect examines per hold of a
// tube lock when it looks for the oldest one; between chunks the lock is
// released so that commands on a tube with millions of ready jobs are held
// up for microseconds at a time, never for a whole scan.
const oldestScanChunk = 4096

// TubeInfo is one tube's figures as Inspect reads them.
type TubeInfo struct {
	TubeStats
	// Paused reports a pause in force at the time of reading.
	Paused bool
	// OldestReady is how long the oldest ready job (by put time) has existed,
	// zero when the tube has no ready job or InspectOptions.Oldest was not
	// set. A released or kicked job counts from its put, as stats-job's age
	// does.
	OldestReady time.Duration
}

// Total returns the number of jobs in the tube, in any state.
func (t *TubeInfo) Total() int64 { return t.Ready + t.Reserved + t.Delayed + t.Buried }

// InspectOptions says what Inspect computes beyond the counters.
type InspectOptions struct {
	// Oldest asks for TubeInfo.OldestReady. It costs a scan of each tube's
	// ready jobs (in chunks of a few thousand, releasing the tube lock in
	// between), so the result is approximate while jobs move.
	Oldest bool
	// OnlyOldest, if set, limits the scan to the tubes it accepts (the
	// counters of every tube are still read).
	OnlyOldest func(name string) bool
}

// Inspect appends the figures of every live tube to dst, in listing order,
// and returns it. Each tube's counters are read together under its lock;
// the tubes are read one after another, so the whole is not a snapshot.
// Safe for concurrent use; it takes one tube lock at a time and never holds
// the registry lock while holding a tube lock.
func (q *Queue) Inspect(dst []TubeInfo, opt InspectOptions) []TubeInfo {
	q.tubes.mu.RLock()
	list := make([]*tube, len(q.tubes.list))
	copy(list, q.tubes.list)
	q.tubes.mu.RUnlock()
	for _, t := range list {
		if t.refs.Load() <= 0 {
			continue // dropped since the list was copied
		}
		info := q.tubeInfo(t)
		if opt.Oldest && info.Ready > 0 && (opt.OnlyOldest == nil || opt.OnlyOldest(t.name)) {
			if c, ok := q.oldestReady(t); ok {
				info.OldestReady = max(time.Duration(q.clock.Now()-c), 0)
			}
		}
		dst = append(dst, info)
	}
	return dst
}

// InspectTube returns the figures of the tube called name, with the age of
// its oldest ready job. ErrBadTubeName or ErrNotFound as StatsTube.
func (q *Queue) InspectTube(name []byte) (TubeInfo, error) {
	t, err := q.namedTube(name)
	if err != nil {
		return TubeInfo{}, err
	}
	info := q.tubeInfo(t)
	if c, ok := q.oldestReady(t); ok {
		info.OldestReady = max(time.Duration(q.clock.Now()-c), 0)
	}
	return info, nil
}

// tubeInfo reads t's counters under its lock.
func (q *Queue) tubeInfo(t *tube) TubeInfo {
	now := q.clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	info := TubeInfo{TubeStats: TubeStats{
		Name:   t.name,
		Urgent: t.urgent, Ready: int64(t.ready.len()), Reserved: t.reserved,
		Delayed: int64(t.delayed.len()), Buried: int64(t.buried.n),
		TotalJobs: t.totalJobs,
		Using:     t.using, Watching: t.watching, Waiting: int64(len(t.waiters.items)),
		Deletes: t.deletes, Pauses: t.pauses,
	}}
	if t.pol != nil {
		info.PolicyCounts = t.pol.ctr.counts()
	}
	if t.pause > 0 {
		info.Pause = time.Duration(t.pause)
		info.PauseLeft = time.Duration(t.unpauseAt - now)
		info.Paused = t.paused(now)
	}
	return info
}

// oldestReady returns the earliest put time among t's ready jobs, scanning
// the heap in chunks and releasing the lock between them.
func (q *Queue) oldestReady(t *tube) (created int64, ok bool) {
	for i := 0; ; {
		t.mu.Lock()
		items := t.ready.items
		end := min(i+oldestScanChunk, len(items))
		for ; i < end; i++ {
			if c := items[i].created; !ok || c < created {
				created, ok = c, true
			}
		}
		more := i < len(items)
		t.mu.Unlock()
		if !more {
			return created, ok
		}
	}
}

// Now returns the queue's clock reading, in nanoseconds.
func (q *Queue) Now() int64 { return q.clock.Now() }

// JournalErr returns the journal's error once it has failed (every later
// change will be refused), nil while it is healthy or when the queue has no
// journal.
func (q *Queue) JournalErr() error {
	if q.journal == nil {
		return nil
	}
	_, err := q.journal.Committed()
	return err
}

// Staller is implemented by a journal that can tell when changes wait on a
// slow disk. Stall describes the wait ("" when nothing is slow); it must
// be cheap, safe for concurrent use, and do no I/O.
type Staller interface {
	Stall() string
}

// JournalStall is the journal's Stall, or "" when it has none (or there is
// no journal): why changes wait for the disk, for health checks.
func (q *Queue) JournalStall() string {
	if s, ok := q.journal.(Staller); ok {
		return s.Stall()
	}
	return ""
}

// Fencer is implemented by a journal whose queue may serve reads while it
// no longer holds the latest state (a cluster leader cut off from its
// followers): Fence returns a sequence number that commits once reads made
// before the call are known current. Safe for concurrent use; no I/O.
type Fencer interface {
	Fence() uint64
}

// ReadFence is the journal's Fence, or 0 (nothing to wait for) when it has
// none: the edge holds the reply of a command that only reads until it is
// committed, and answers INTERNAL_ERROR if the journal fails first.
func (q *Queue) ReadFence() uint64 {
	if q.fencer != nil {
		return q.fencer.Fence()
	}
	return 0
}

// Peek returns any job by id, whatever its state and tube.
func (q *Queue) Peek(id uint64) (JobData, error) {
	d, ok := q.jobs.data(id)
	if !ok {
		return JobData{}, ErrNotFound
	}
	return d, nil
}

// PeekReady returns the next job reserve would take from the used tube
// (ignoring a pause).
func (s *Session) PeekReady() (JobData, error) {
	return s.peekTop(func(t *tube) *job { return t.ready.top() })
}

// PeekDelayed returns the delayed job of the used tube that becomes ready
// first.
func (s *Session) PeekDelayed() (JobData, error) {
	return s.peekTop(func(t *tube) *job { return t.delayed.top() })
}

// PeekBuried returns the oldest buried job of the used tube.
func (s *Session) PeekBuried() (JobData, error) {
	return s.peekTop(func(t *tube) *job { return t.buried.head })
}

func (s *Session) peekTop(pick func(*tube) *job) (JobData, error) {
	t := s.use
	t.mu.Lock()
	defer t.mu.Unlock()
	j := pick(t)
	if j == nil {
		return JobData{}, ErrNotFound
	}
	return j.data(), nil
}
