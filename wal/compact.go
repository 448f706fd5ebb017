package wal

import (
	"sort"
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
// them; cut is the first index after them (0: nothing worth doing). It
// reads the job table a chunk at a time (scanJobs), so the writers are
// never held up for more than that.
func (l *Log) plan() (ids []uint64, cut uint64) {
	l.mu.Lock()
	if !l.compactNeeded() {
		l.mu.Unlock()
		return nil, 0
	}
	segs := append([]segment(nil), l.segs.segs...)
	total, target := l.segs.total, l.live*3/2+l.segs.size
	l.mu.Unlock()
	liveIn := make([]int64, len(segs)) // bytes of live whole records per segment
	l.scanJobs(func(_, index uint64, size uint32) {
		liveIn[segmentOf(segs, index)] += int64(size)
	})
	var freed, moved int64
	k := 0
	for k < len(segs)-1 {
		freed += segs[k].bytes
		moved += liveIn[k]
		k++
		if segs[k].start-1 > segs[0].start && total-freed+moved <= target {
			break
		}
	}
	cut = segs[k].start
	if cut-1 <= segs[0].start || freed-moved <= 0 {
		l.mu.Lock()
		l.compactAfter = l.segs.total + l.segs.size/4
		l.mu.Unlock()
		return nil, 0
	}
	l.scanJobs(func(id, index uint64, _ uint32) {
		if index < cut {
			ids = append(ids, id)
		}
	})
	return ids, cut
}

// segmentOf is the position in segs of the segment holding index.
func segmentOf(segs []segment, index uint64) int {
	return max(sort.Search(len(segs), func(i int) bool { return segs[i].start > index })-1, 0)
}

// scanJobs calls fn for every live job, taking mu for one chunk of the
// table at a time, and for the ids kept apart (far) last. Jobs put during
// the scan may be missed; every job live throughout is seen (a job the
// table moves apart meanwhile is found there). Compactor only.
func (l *Log) scanJobs(fn func(id, index uint64, size uint32)) {
	l.mu.Lock()
	lo, hi := l.jobs.base, l.jobs.end()
	l.mu.Unlock()
	for c := lo; c < hi; c += locChunk {
		l.mu.Lock()
		l.jobs.each(c, c+locChunk, false, fn)
		l.mu.Unlock()
	}
	l.mu.Lock()
	l.jobs.each(0, 0, true, fn)
	l.mu.Unlock()
}

// truncate checks that no live job still has its whole record before cut,
// queues a meta record naming the new start (and the id high-water mark),
// and waits for the sync goroutine to make it durable and truncate the
// front. The check reads the table a chunk at a time: a job's whole record
// only ever moves forward, to the log's end, so a job found clean stays
// clean.
func (l *Log) truncate(cut uint64) bool {
	var stuck uint64
	l.scanJobs(func(id, index uint64, _ uint32) {
		if index < cut && stuck == 0 {
			stuck = id
		}
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	if stuck != 0 {
		l.log.Warn().Uint64("job_id", stuck).Msg("compaction could not move a job; retrying later")
		l.compactAfter = l.segs.total + l.segs.size/4
		return false
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
	l.mu.Lock()
	var files []segFile
	if err != nil {
		// Listed under mu: a writer that starts a segment takes mu to add
		// it, so none can start between this listing and relist. (Listed
		// before the lock, a segment started in between was missing from
		// the picture: the next truncation left its file behind, and the
		// next Open found a gap.) Only after a failed truncation.
		var lerr error
		if files, _, lerr = listSegments(l.dir); lerr != nil {
			files = nil // keep the picture as it is
		}
	}
	l.truncDone, l.truncErr = want, err
	l.metrics.compacted(err == nil) // before anyone can see truncDone
	if err == nil {
		l.compactAfter = 0
		l.dropFront(first)
	} else {
		l.compactAfter = l.segs.total + l.segs.size/4 // back off
		if files != nil {
			l.relist(files)
		}
	}
	l.cond.Broadcast()
	l.mu.Unlock()
	if err == nil {
		l.retryReserve(true)
	}
}

// dropFront replaces the segments before first's successor with first (the
// new first segment a truncation wrote). Called with mu held.
func (l *Log) dropFront(first segment) {
	segs := l.segs.segs
	k := 0
	for k < len(segs)-1 && segs[k+1].start <= first.start {
		k++
	}
	segs[k] = first
	l.segs.reset(append(segs[:0], segs[k:]...))
	l.jobs.floor = first.start // every live record lies from here on
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
