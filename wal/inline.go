package wal

// Inline commits. A lone synchronous client under -f0 waits, per put, for
// two goroutine hand-offs: the event loop wakes the writer, and the writer,
// after its fsync, wakes the event loop again. Each is a futex wake and a
// trip through the scheduler, and with one CPU the writer cannot even run
// until the loop blocks. CommitInline lets the caller - the event loop that
// just appended, once its commands are done - run the writer's step itself
// and send the reply in the same callback.
//
// Only one step runs at a time: stepMu is held by whoever runs one, the
// writer goroutine or an inline caller, and it owns the writer's fields
// (store, batch buffers, dirty, newSeg) while it holds it. An inline caller
// that finds a step running gives up at once (the step running will write
// its records, or the writer's next one will); the writer, finding an
// inline step running, leaves the work to it, which wakes the writer again
// afterwards if anything is left for it (records appended since it took the
// batch, a truncation, the space reserve).
//
// Whether to commit inline is the caller's decision: blocking an event loop
// for an fsync is worth it only while no other client waits for the same
// fsync; otherwise the writer's batching (group commit) is the better deal.
// The log only refuses when the policy has a sync timer (-f N: the timer
// belongs to the writer's select) or when it is not running.

// CommitInline writes everything appended so far, fsyncs it as the policy
// says, publishes Committed and fires the subscribers, all on the calling
// goroutine, then reports whether seq is committed. It does nothing and
// reports false when another step is running, when the policy is -f N, or
// when the log is not running (before Replay, closing, failed).
//
// The caller must hold no lock that Append may wait for (a tube lock): the
// step can take an fsync's time. It does the write, the fsync and the
// manifest update; truncation, the space reserve and compaction stay with
// the writer and compactor goroutines.
func (l *Log) CommitInline(seq uint64) bool {
	if l.opts.SyncInterval != 0 && !l.opts.NoSync {
		return false
	}
	if !l.stepMu.TryLock() {
		return false
	}
	l.mu.Lock()
	ok := l.running && !l.closing && !l.closed && l.failed == nil
	l.mu.Unlock()
	if ok {
		l.inlineStep()
	}
	l.stepMu.Unlock()
	if !ok {
		return false
	}
	l.mu.Lock()
	left := l.pending.n > 0 || l.truncWant > l.truncDone || l.lowSpace
	l.mu.Unlock()
	if left {
		signal(l.wake)
	}
	c, err := l.Committed()
	return err == nil && seq <= c
}

// inlineStep is step without the writer's housekeeping. stepMu held.
func (l *Log) inlineStep() {
	if !l.commitBatch() {
		return
	}
	l.metrics.inline.Add(1)
	l.askCompaction()
}
