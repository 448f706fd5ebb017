package wal

import "fmt"

// The fsync policy. -f0 (SyncInterval 0): fsync after every batch, before
// Committed moves. -f MS: Committed moves once written; the first write
// after an fsync arms a timer of MS, and its firing fsyncs, so acknowledged
// data reaches the disk within MS even if nothing else is written. -F: no
// fsync for acknowledgements. Whatever the policy, the compactor can ask
// for an fsync (forceSync) before it truncates the front.

// syncPolicy fsyncs when the policy (or the compactor) asks for it, or arms
// the timer that bounds how long written data stays unsynced.
func (l *Log) syncPolicy() error {
	l.mu.Lock()
	forced := l.forceSync > l.durableIndex
	l.mu.Unlock()
	due := l.syncDue
	l.syncDue = false
	switch {
	case l.opts.NoSync:
		if forced {
			return l.sync()
		}
	case l.opts.SyncInterval == 0 || forced || due:
		return l.sync()
	case l.dirty && l.syncC == nil:
		l.syncC, l.syncStop = l.hook.newTimer(l.opts.SyncInterval)
	}
	return nil
}

// sync fsyncs the current segment (and the directory after a new segment
// file appeared), then moves the durable marks.
func (l *Log) sync() error {
	if l.syncStop != nil {
		l.syncStop()
		l.syncC, l.syncStop = nil, nil
	}
	if l.dirty {
		if err := l.syncStore(); err != nil {
			return fmt.Errorf("wal: fsync: %w", err)
		}
		l.dirty = false
	}
	if l.newSeg {
		if err := syncDir(l.dir); err != nil {
			return fmt.Errorf("wal: fsync directory: %w", err)
		}
		l.newSeg = false
	}
	l.mu.Lock()
	l.durableIndex, l.durableSeq = l.writtenIndex, l.writtenSeq
	l.cond.Broadcast()
	l.mu.Unlock()
	return nil
}

// publish makes the newly acknowledgeable records visible and fires the
// subscribers.
func (l *Log) publish() {
	l.mu.Lock()
	c := l.writtenSeq
	if l.opts.SyncInterval == 0 && !l.opts.NoSync {
		c = l.durableSeq
	}
	l.mu.Unlock()
	if c != l.committed.Load() {
		l.committed.Store(c)
		l.notify()
	}
}
