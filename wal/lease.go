package wal

import (
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"
)

// The id lease. Job ids must never repeat, whatever is lost from the log's
// end (an unsynced tail after a machine crash, a segment cut or salvaged):
// clients hold the ids they were given. So the high-water mark cannot live
// only in the records. Before an id is handed out, the end of a block of
// ids containing it is recorded durably in DIR/manifest ("id_lease",
// fsynced whatever the -f/-F policy: it is one fsync per block). On Open
// the next id is max(highest id in the records, lease end) + 1: after a
// crash ids skip to the lease end, never below it. A clean Close records
// the last id handed out instead, giving back the unused rest.
//
// The steady state costs two atomic operations per id and no lock: a block
// is extended in the background once half of it is used, and an id blocks
// (on the manifest's fsync) only when a block ran out before that
// extension finished. Blocks adapt to the rate: they start at
// minLeaseBlock ids and, each time the previous block lasted less than
// leaseFast, at least double, up to maxLeaseBlock (to what the rate seen
// would use in leaseFast, rounded up to a power of two, if that is more:
// a burst reaches large blocks in one or two fsyncs, not ten); they halve
// when one lasted more than leaseSlow. So a high put rate costs few
// fsyncs, and a crash at a low rate burns few ids.
//
// A lease that cannot be recorded because the disk is full does not kill
// the journal: puts are refused with ErrNoSpace (OUT_OF_MEMORY) until a
// later id, at least leaseRetry later, records one; ids handed out
// meanwhile belong to refused puts and lie below the next lease. Any other
// failure to record a lease kills the journal, like a failed fsync.

const (
	minLeaseBlock = 1 << 10
	maxLeaseBlock = 1 << 20
	leaseFast     = time.Second
	leaseSlow     = time.Minute
	leaseRetry    = time.Second
)

// idLease hands out ids from durably recorded blocks. Safe for concurrent
// use. persist is called with no lock of the lease held, by one caller at
// a time.
type idLease struct {
	next  atomic.Uint64 // the next id to hand out
	limit atomic.Uint64 // ids below it are covered by a durable lease
	half  atomic.Uint64 // handing out this id starts the next extension

	mu       sync.Mutex
	cond     *sync.Cond // on mu: an extension finished
	busy     bool       // an extension is in flight
	err      error      // an extension failed for good: no more are tried
	retryAt  time.Time  // an extension failed for now: none before this
	closed   bool
	size     uint64        // the current block size
	extended time.Time     // when the last extension was asked for
	nextAt   uint64        // next when the last extension was asked for
	waits    atomic.Uint64 // ids that found their block used up (and waited, or were refused)
	bg       sync.WaitGroup

	now     func() time.Time
	persist func(end uint64) error // records end (the last id leased) durably
	// failed is told of a failed extension, and says whether to retry
	// (after leaseRetry) or give up for good. Called with mu held.
	failed func(error) (retry bool)
	// grown is told of a recorded extension (optional). Called with mu held.
	grown func(end, size uint64)
	// unleased is told that an id is handed out that no recorded lease
	// covers (after a failure, before the retry); nothing naming it may be
	// written until grown is called (optional). Called with mu held.
	unleased func()
}

// newIDLease starts a lease handing out next and on, where every id up to
// end (end >= next-1) is already durably leased.
func newIDLease(next, end uint64, now func() time.Time, persist func(uint64) error, failed func(error) bool) *idLease {
	ls := &idLease{size: minLeaseBlock, now: now, persist: persist, failed: failed, extended: now(), nextAt: next}
	ls.cond = sync.NewCond(&ls.mu)
	ls.next.Store(next)
	ls.limit.Store(end + 1)
	ls.half.Store(end + 1 - min(end+1-next, minLeaseBlock)/2)
	return ls
}

// nextID spends and returns an id. Ids below the limit are handed out
// without a lock; the one half way through a block starts the next
// extension in the background; an id past the limit waits for it.
func (ls *idLease) nextID() uint64 {
	id := ls.next.Add(1) - 1
	if id < ls.limit.Load() {
		if id == ls.half.Load() {
			ls.prefetch()
		}
		return id
	}
	ls.cover(id, true)
	return id
}

// ensureNext makes sure no id below next is handed out (the limit is
// checked when they are).
func (ls *idLease) ensureNext(next uint64) {
	for {
		cur := ls.next.Load()
		if cur >= next || ls.next.CompareAndSwap(cur, next) {
			return
		}
	}
}

// cover returns once id is leased, or once no lease can be had now (the
// journal failed, closed or refuses puts: nothing naming id is written).
// handedOut says id was handed out (not a background extension's target).
func (ls *idLease) cover(id uint64, handedOut bool) {
	if handedOut {
		ls.waits.Add(1)
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for id >= ls.limit.Load() && ls.err == nil && !ls.closed {
		if ls.busy {
			ls.cond.Wait()
			continue
		}
		if ls.now().Before(ls.retryAt) {
			if handedOut && ls.unleased != nil {
				ls.unleased()
			}
			return
		}
		ls.extend(id)
	}
}

// prefetch extends the lease in the background.
func (ls *idLease) prefetch() {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.busy || ls.err != nil || ls.closed {
		return
	}
	want := ls.limit.Load()
	ls.bg.Add(1)
	go func() {
		defer ls.bg.Done()
		ls.cover(want, false)
	}()
}

// extend records a new block covering want. Called with mu held; releases
// it during persist.
func (ls *idLease) extend(want uint64) {
	now, next := ls.now(), ls.next.Load()
	switch took := now.Sub(ls.extended); {
	case took < leaseFast:
		grow := float64(ls.size * 2)
		if took > 0 && next > ls.nextAt {
			grow = max(grow, float64(next-ls.nextAt)*float64(leaseFast)/float64(took))
		}
		ls.size = maxLeaseBlock
		if grow < maxLeaseBlock {
			ls.size = 1 << bits.Len64(uint64(grow)-1) // a power of two, >= grow
		}
	case took > leaseSlow:
		ls.size = max(ls.size/2, minLeaseBlock)
	}
	ls.extended, ls.nextAt = now, next
	size := ls.size
	// Past every id handed out so far (some may have been handed out
	// unleased while the disk was full), and past want.
	end := max(ls.limit.Load(), next, want+1) - 1 + size
	ls.busy = true
	ls.mu.Unlock()
	err := ls.persist(end)
	ls.mu.Lock()
	ls.busy = false
	ls.cond.Broadcast()
	if err != nil {
		if ls.failed(err) {
			ls.retryAt = now.Add(leaseRetry)
		} else {
			ls.err = err
		}
		return
	}
	ls.half.Store(end + 1 - size/2)
	ls.limit.Store(end + 1)
	if ls.grown != nil {
		ls.grown(end, size)
	}
}

// close stops extensions (ids handed out afterwards are not leased: the
// journal writes nothing more) and waits for one in the background. It
// returns the last id handed out.
func (ls *idLease) close() uint64 {
	ls.mu.Lock()
	ls.closed = true
	for ls.busy {
		ls.cond.Wait()
	}
	ls.mu.Unlock()
	ls.bg.Wait()
	return ls.next.Load() - 1
}

// NextID implements jobs.IDSource: it spends and returns a job id, leased
// as described in lease.go. Safe for concurrent use; it blocks only when
// a block of ids ran out before its background extension was durable.
func (l *Log) NextID() uint64 { return l.lease.nextID() }

// EnsureNextID implements jobs.IDSource: no id below next is handed out.
// Safe for concurrent use.
func (l *Log) EnsureNextID(next uint64) { l.lease.ensureNext(next) }

// leaseFailed handles a lease that could not be recorded: ids past the
// lease have no guarantee, so no put may be written until one is. A full
// disk refuses puts (ErrNoSpace) until a retry succeeds; anything else
// kills the journal. Called with the lease's lock held.
func (l *Log) leaseFailed(err error) (retry bool) {
	if !isNoSpace(err) {
		l.fail(fmt.Errorf("recording the id lease: %w", err))
		return false
	}
	if !l.leaseDown {
		l.log.Error().Err(err).Str("dir", l.dir).
			Msg("disk full: cannot record the id lease; puts past it get OUT_OF_MEMORY until it can be")
	}
	l.leaseDown = true
	return true
}

// leaseUnleased refuses puts: an id no recorded lease covers was handed
// out. Called with the lease's lock held.
func (l *Log) leaseUnleased() {
	l.mu.Lock()
	l.leaseShort = true
	l.mu.Unlock()
}

// leaseGrown lifts the refusal of puts once a lease is recorded again.
// Called with the lease's lock held.
func (l *Log) leaseGrown(end, size uint64) {
	l.mu.Lock()
	l.leaseShort = false
	l.mu.Unlock()
	was := l.leaseDown
	l.leaseDown = false
	if was {
		l.log.Warn().Str("dir", l.dir).Uint64("id_lease", end).Msg("id lease recorded again; puts accepted")
	}
}

// giveBack records the last id handed out as the lease end at a clean
// Close, so a restart does not skip the unused rest of the block. After a
// failure the lease is kept as it is.
func (l *Log) giveBack() {
	last := l.lease.close()
	l.mu.Lock()
	failed := l.failed != nil
	last = max(last, l.maxID)
	l.mu.Unlock()
	if failed {
		return
	}
	if err := l.recordLease(last); err != nil {
		l.log.Warn().Err(err).Msg("cannot give back the unused id lease; the next start skips it")
	}
}
