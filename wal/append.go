package wal

import (
	"fmt"

	"github.com/stalkd/stalkd/jobs"
)

// Append implements jobs.Journal: it gives rec the next sequence number and
// wal index, notes where the job's latest whole record will be, and queues
// rec for the next Flush (writer.go). It never does I/O and never waits;
// the lock it takes is held for a few field updates. Safe for concurrent
// use (the queue calls it holding the job's tube lock). rec.Body is kept,
// not copied, until written.
//
// It refuses with ErrJournal once the journal has failed or closed, and
// with ErrNoSpace a put while the disk is full (low-space mode, or no id
// lease could be recorded) or the writers are far behind, and an update once low-space mode has used half of
// the reserve. A record the format cannot hold (an unknown kind or state)
// is refused with an error wrapping ErrJournal. Deletes, clears and compaction moves are refused only by a
// dead journal, and so are policy records (compaction must be able to
// write them again to free space).
func (l *Log) Append(rec jobs.Record) (uint64, error) {
	if err := encodable(&rec); err != nil {
		return 0, fmt.Errorf("%w: record of kind %d, state %d: %v", jobs.ErrJournal, rec.Kind, rec.State, err)
	}
	size := int64(entrySize(recordSize(&rec)))
	moving := rec.Kind == jobs.RecPut && rec.ID != 0 && rec.ID == l.rewriting.Load()
	l.mu.Lock()
	if err := l.admit(rec.Kind, moving, size); err != nil {
		l.mu.Unlock()
		return 0, err
	}
	seq, idx := l.nextSeq, l.nextIndex
	l.nextSeq++
	l.nextIndex++
	l.pending.push(pendingRec{rec: rec, index: idx, seq: seq})
	l.pendingBytes += size
	l.track(&rec, idx, size, moving)
	l.appended.Store(seq)
	idle := !l.watching
	l.watching = true
	l.mu.Unlock()
	if idle {
		signal(l.wake) // the sync goroutine's backstop sleeps: start it
	}
	return seq, nil
}

// admit decides whether a record may be queued. Called with mu held.
// Deletes and clears are always admitted by a live journal: they free space.
func (l *Log) admit(kind jobs.RecordKind, moving bool, size int64) error {
	budget := l.opts.reserveSize()
	switch {
	case l.failed != nil || l.closed:
		return jobs.ErrJournal
	case kind == jobs.RecDelete || kind == jobs.RecClear || moving:
		return nil // compaction is what frees space
	case kind == jobs.RecPolicy || kind == jobs.RecPolicySet:
		return nil // rare and small, and compaction writes them again
	case kind == jobs.RecUpdate:
		if l.lowSpace && l.lowSpent > budget/2 {
			return jobs.ErrNoSpace
		}
	default: // a put: one larger than maxPending is taken when nothing waits
		if l.lowSpace || l.leaseShort || l.pendingBytes > 0 && l.pendingBytes+size > maxPending {
			return jobs.ErrNoSpace
		}
	}
	return nil
}

// track updates the job index and the live-bytes count for rec at idx.
// Called with mu held.
func (l *Log) track(rec *jobs.Record, idx uint64, size int64, moving bool) {
	l.maxID = max(l.maxID, rec.ID)
	switch rec.Kind {
	case jobs.RecPut:
		l.live += size - int64(l.jobs.set(rec.ID, idx, uint32(size)))
		if moving {
			l.migrated++
		}
	case jobs.RecPolicy:
		l.trackPolicy(rec, idx)
	case jobs.RecPolicySet:
		l.trackPolicySet(rec, idx)
	case jobs.RecDelete:
		l.forget(rec.ID)
	case jobs.RecClear: // holds no live job, like a delete per id
		for _, id := range rec.IDs {
			l.maxID = max(l.maxID, id)
			l.forget(id)
		}
	}
}

// forget drops job id from the index. Called with mu held.
func (l *Log) forget(id uint64) {
	if size, ok := l.jobs.del(id); ok {
		l.live -= int64(size)
	}
}

// appendMeta queues a meta record and returns its index. Called with mu
// held.
func (l *Log) appendMeta() uint64 {
	idx := l.nextIndex
	l.nextIndex++
	l.metaDurable = l.durableIndex
	m := meta{durable: l.durableIndex, logStart: l.logStart, maxID: l.maxID}
	l.pending.push(pendingRec{index: idx, isMeta: true, m: m})
	l.pendingBytes += 32
	return idx
}
