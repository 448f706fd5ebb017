package wal

import (
	"fmt"
	"time"
)

// The sync goroutine and the fsync policy. -f0 (SyncInterval 0): every
// write wakes it; it fdatasyncs the segment files written since the last
// sync and then commits every record they hold (group commit: what is
// written while it syncs is covered by the next fsync). -f MS: the writer
// commits a record once written; the first write after an fsync wakes this
// goroutine, which arms a timer of MS, and its firing fsyncs, so
// acknowledged data reaches the disk within MS even if nothing else is
// written. -F: no fsync for acknowledgements. Whatever the policy, a full
// segment is fsynced and closed once the writer has moved past it, and the
// compactor can ask for an fsync (forceSync) before it truncates the front.
//
// The fsync runs outside every lock a writer takes: it works on a snapshot
// of the files and of the written marks taken under mu, so a write(2) that
// completes after the snapshot is simply covered by the next sync.
//
// The backstop: records appended by goroutines that never flush (a caller
// that does not wait) are written by this goroutine within backstopEvery.
// Its timer runs only while records are being appended; Append wakes the
// goroutine when it is idle (the first record after a quiet period).

// backstopEvery bounds how long a record nobody flushed stays unwritten.
const backstopEvery = 100 * time.Millisecond

// runSyncer is the sync goroutine.
func (l *Log) runSyncer() {
	defer close(l.writerDone)
	for {
		tick := false
		select {
		case <-l.wake:
		case <-l.syncC:
			l.syncC, l.syncStop = nil, nil
			l.syncDue = true
		case <-l.tickC:
			l.tickC, l.tickStop = nil, nil
			tick = true
		case <-l.stopWriter:
			l.shutdown()
			return
		}
		l.step(tick)
	}
}

func (l *Log) step(tick bool) {
	l.mu.Lock()
	failed := l.failed != nil
	forced := l.forceSync > l.durableIndex
	l.mu.Unlock()
	if failed {
		return
	}
	if tick || forced {
		l.wmu.Lock()
		l.writePending()
		l.wmu.Unlock()
	}
	if err := l.syncPolicy(); err != nil {
		l.fail(err)
		return
	}
	l.publish()
	l.noteTail()
	l.serveTruncate()
	l.retryReserve(false)
	l.watch()
	l.mu.Lock()
	if l.compactNeeded() {
		signal(l.compactWake)
	}
	l.mu.Unlock()
}

// watch keeps the backstop timer running while records are being appended,
// and lets the goroutine sleep once a period passed without any (Append
// then wakes it).
func (l *Log) watch() {
	l.mu.Lock()
	active := l.nextSeq != l.lastSeen || l.pending.n > 0
	l.lastSeen = l.nextSeq
	l.watching = active
	l.mu.Unlock()
	if active && l.tickC == nil {
		l.tickC, l.tickStop = l.hook.newTick(backstopEvery)
	}
}

// syncPolicy fsyncs when the policy (or the compactor) asks for it, and
// arms the timer that bounds how long written data stays unsynced while
// any is; full segments are fsynced and closed in any case.
func (l *Log) syncPolicy() error {
	l.mu.Lock()
	forced := l.forceSync > l.durableIndex
	l.mu.Unlock()
	due := l.syncDue
	l.syncDue = false
	var err error
	switch {
	case l.opts.NoSync && !forced:
		err = l.syncRetired()
	case l.opts.NoSync || l.opts.SyncInterval == 0 || forced || due:
		err = l.sync()
	default:
		err = l.syncRetired()
	}
	if err != nil || l.opts.NoSync || l.opts.SyncInterval == 0 || l.syncC != nil {
		return err
	}
	// Written since the last fsync (before this one, or while it ran): the
	// writers wake this goroutine only on the first write after an fsync.
	l.mu.Lock()
	dirty := l.writtenIndex > l.durableIndex
	l.mu.Unlock()
	if dirty {
		l.syncC, l.syncStop = l.hook.newTimer(l.opts.SyncInterval)
	}
	return nil
}

// sync fsyncs every segment file written since the last sync (and the
// directory after a new segment file appeared), then moves the durable
// marks to what was written before it began.
func (l *Log) sync() error {
	if l.syncStop != nil {
		l.syncStop()
		l.syncC, l.syncStop = nil, nil
	}
	l.mu.Lock()
	retired, cur, tail := l.retired, l.cur, l.segs.tail().start
	l.retired = nil
	idx, seq := l.writtenIndex, l.writtenSeq
	dirty := idx > l.durableIndex
	newSeg := l.newSeg
	l.newSeg = false
	l.mu.Unlock()
	if err := l.syncFiles(retired, newSeg); err != nil {
		return err
	}
	if dirty {
		if err := l.syncStore(cur); err != nil {
			return fmt.Errorf("wal: fsync: %w", err)
		}
	}
	l.mu.Lock()
	l.syncedTail = tail
	l.durableIndex, l.durableSeq = max(l.durableIndex, idx), max(l.durableSeq, seq)
	if l.syncEvery() {
		l.committed.Store(l.durableSeq)
	}
	l.cond.Broadcast()
	l.mu.Unlock()
	return nil
}

// syncRetired fsyncs and closes the full segments the writer has moved
// past, and moves the durable marks over them.
func (l *Log) syncRetired() error {
	l.mu.Lock()
	retired, tail := l.retired, l.segs.tail().start
	l.retired = nil
	newSeg := l.newSeg
	l.newSeg = false
	l.mu.Unlock()
	if len(retired) == 0 && !newSeg {
		return nil
	}
	if err := l.syncFiles(retired, newSeg); err != nil {
		return err
	}
	l.mu.Lock()
	l.syncedTail = max(l.syncedTail, tail)
	if n := len(retired); n > 0 {
		last := retired[n-1]
		l.durableIndex, l.durableSeq = max(l.durableIndex, last.lastIndex), max(l.durableSeq, last.lastSeq)
		if l.syncEvery() {
			l.committed.Store(l.durableSeq)
		}
	}
	l.cond.Broadcast()
	l.mu.Unlock()
	return nil
}

// syncFiles fsyncs and closes retired segment files, and fsyncs the
// directory when a segment file was created.
func (l *Log) syncFiles(retired []retiredSeg, newSeg bool) error {
	for i, r := range retired {
		if err := l.syncStore(r.f); err != nil {
			l.mu.Lock()
			l.retired = append(retired[i:], l.retired...) // closed by shutdown
			l.mu.Unlock()
			return fmt.Errorf("wal: fsync: %w", err)
		}
		r.f.Close()
	}
	if newSeg {
		if err := l.hook.syncDir(l.dir); err != nil {
			return fmt.Errorf("wal: fsync directory: %w", err)
		}
	}
	return nil
}

// publish tells the subscribers that Committed moved since they last heard.
// Sync goroutine (or Close).
func (l *Log) publish() {
	if c := l.committed.Load(); c != l.notified {
		l.notified = c
		l.notify()
	}
}
