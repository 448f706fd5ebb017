package wal

import (
	"time"
)

// Compaction. Only the latest whole record of a live job (and the updates
// after it) is needed; every other byte is garbage. The log can only
// drop whole segments from the front, so the compactor cleans the oldest
// segments: it asks the queue to write every live job whose latest whole
// record is there again (Rewrite appends a fresh put record with the job's
// current state under its tube lock), waits until those are fsynced, and
// has the sync goroutine truncate the front. Updates in the cleaned segments are
// then dead too, because each job's whole record is older than its updates.
//
// It starts when garbage exceeds live + one segment and cleans until the
// log would be at most 1.5 x live + one segment, so the log stays within
// about 2 x live + 2 segments whatever the workload (jobs buried or
// released again and again included: their update records are garbage as
// soon as the job is moved).
//
// The front is cut at the last entry of the last cleaned segment, so the
// truncation (cutFront) copies that one entry into a new file instead of a
// whole segment, and never touches the tail segment the writers append to.

// compactNeeded is the trigger. Called with mu held.
func (l *Log) compactNeeded() bool {
	if l.failed != nil || l.closing || len(l.segs.segs) < 2 || l.segs.total < l.compactAfter {
		return false
	}
	garbage := l.segs.total - l.live
	if l.lowSpace {
		return garbage >= l.segs.size
	}
	return garbage > l.live+l.segs.size
}

// runCompactor is the compaction goroutine.
func (l *Log) runCompactor(q queue) {
	defer close(l.compactorDone)
	for {
		select {
		case <-l.compactWake:
		case <-l.stopCompactor:
			return
		}
		for l.compactRound(q) {
		}
	}
}

// compactRound cleans the oldest segments once; it reports whether the
// front was truncated (another round may be due).
func (l *Log) compactRound(q queue) bool {
	ids, cut := l.plan()
	if cut == 0 {
		return false
	}
	start := time.Now()
	for _, id := range ids {
		select {
		case <-l.stopCompactor:
			return false
		default:
		}
		l.rewriting.Store(id)
		q.Rewrite(id)
		l.rewriting.Store(0)
	}
	if !l.keepPolicies(q, cut) {
		return false
	}
	ok := l.truncate(cut) // the sync goroutine counts it (compacted) as it publishes truncDone
	l.log.Debug().Int("jobs_moved", len(ids)).Uint64("first_index", cut).Bool("ok", ok).Float64("took_ms", msSince(start)).Msg("compaction round")
	return ok
}

// plan picks the oldest segments to clean and the live jobs to move out of
// them; cut is the first index after them (0: nothing worth doing).
func (l *Log) plan() (ids []uint64, cut uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.compactNeeded() {
		return nil, 0
	}
	segs := l.segs.segs
	target := l.live*3/2 + l.segs.size
	var freed, moved int64
	w, k := l.wholeHead, 0
	for k < len(segs)-1 {
		end := segs[k+1].start
		for ; w < len(l.whole) && l.whole[w].index < end; w++ {
			if r := l.whole[w]; l.current(r) {
				ids = append(ids, r.id)
				lc, _ := l.jobs.get(r.id)
				moved += int64(lc.size)
			}
		}
		freed += segs[k].bytes
		k++
		if end-1 > segs[0].start && l.segs.total-freed+moved <= target {
			break
		}
	}
	cut = segs[k].start
	if cut-1 <= segs[0].start || freed-moved <= 0 {
		l.compactAfter = l.segs.total + l.segs.size/4
		return nil, 0
	}
	return ids, cut
}

// current reports whether r is still the latest whole record of a live
// job. Called with mu held.
func (l *Log) current(r wholeRec) bool {
	lc, ok := l.jobs.get(r.id)
	return ok && lc.index == r.index
}

// truncate checks that no live job still has its whole record before cut,
// queues a meta record naming the new start (and the id high-water mark),
// and waits for the sync goroutine to make it durable and truncate the front.
func (l *Log) truncate(cut uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for w := l.wholeHead; w < len(l.whole) && l.whole[w].index < cut; w++ {
		if r := l.whole[w]; l.current(r) {
			l.log.Warn().Uint64("job_id", r.id).Msg("compaction could not move a job; retrying later")
			l.compactAfter = l.segs.total + l.segs.size/4
			return false
		}
	}
	if l.failed != nil || l.closing {
		return false
	}
	newStart := cut - 1
	l.logStart = newStart
	m := l.appendMeta()
	l.truncWant, l.truncMeta = newStart, m
	l.forceSync = max(l.forceSync, m)
	signal(l.wake)
	for l.truncDone < newStart && l.failed == nil && !l.closing {
		l.cond.Wait()
	}
	return l.truncDone >= newStart && l.truncErr == nil
}

// serveTruncate performs a truncation the compactor asked for, once its
// meta record is durable. Sync goroutine only. The writers keep appending
// meanwhile: a truncation never touches the tail segment (see cutFront).
func (l *Log) serveTruncate() {
	l.mu.Lock()
	want, m, done, durable := l.truncWant, l.truncMeta, l.truncDone, l.durableIndex
	l.mu.Unlock()
	if want <= done || durable < m {
		return
	}
	first, err := l.hook.cutFront(l, want)
	if err != nil {
		l.log.Error().Err(err).Uint64("first_index", want).Msg("truncating the front of the log failed; retrying later")
	}
	if serr := l.hook.syncDir(l.dir); serr != nil {
		l.log.Error().Err(serr).Msg("fsync of the directory after a truncation failed")
	}
	var files []segFile
	if err != nil {
		files, _, _ = listSegments(l.dir)
	}
	l.mu.Lock()
	l.truncDone, l.truncErr = want, err
	l.metrics.compacted(err == nil) // before anyone can see truncDone
	if err == nil {
		l.compactAfter = 0
		l.dropFront(first)
	} else {
		l.compactAfter = l.segs.total + l.segs.size/4 // back off
		l.relist(files)
	}
	l.cond.Broadcast()
	l.mu.Unlock()
	if err == nil {
		l.retryReserve(true)
	}
}

// dropFront replaces the segments before first's successor with first (the
// new first segment a truncation wrote), and forgets whole records before
// it. Called with mu held.
func (l *Log) dropFront(first segment) {
	segs := l.segs.segs
	k := 0
	for k < len(segs)-1 && segs[k+1].start <= first.start {
		k++
	}
	segs[k] = first
	l.segs.reset(append(segs[:0], segs[k:]...))
	for l.wholeHead < len(l.whole) && l.whole[l.wholeHead].index < first.start {
		l.wholeHead++
	}
	if l.wholeHead > len(l.whole)/2 {
		n := copy(l.whole, l.whole[l.wholeHead:])
		l.whole = l.whole[:n]
		l.wholeHead = 0
	}
}

// relist brings the picture of every segment but the tail (which the
// writers own) in line with the files after a failed truncation. Called
// with mu held.
func (l *Log) relist(files []segFile) {
	tail := l.segs.tail()
	var segs []segment
	for _, f := range files {
		if f.start < tail.start {
			segs = append(segs, segment{start: f.start, bytes: f.size})
		}
	}
	l.segs.reset(append(segs, tail))
}
