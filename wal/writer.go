package wal

import (
	"fmt"

	twal "github.com/tidwall/wal"

	"github.com/stalkd/stalkd/jobs"
)

// The writer goroutine: it takes everything pending, writes it to
// tidwall/wal in chunks (one write(2) each), fsyncs as the policy says,
// publishes Committed, fires subscribers, then serves a truncation the
// compactor asked for. Records that arrive while it writes or syncs form
// the next batch: with -f0, one fsync covers every client waiting.

func (l *Log) runWriter() {
	defer close(l.writerDone)
	for {
		select {
		case <-l.wake:
		case <-l.syncC:
			l.syncC, l.syncStop = nil, nil
			l.syncDue = true
		case <-l.stopWriter:
			l.shutdown()
			return
		}
		l.step()
	}
}

func (l *Log) step() {
	l.mu.Lock()
	failed := l.failed != nil
	l.mu.Unlock()
	if failed {
		return
	}
	batch := l.take(false)
	if err := l.writeAll(batch); err != nil {
		l.fail(err)
		return
	}
	if err := l.syncPolicy(); err != nil {
		l.fail(err)
		return
	}
	l.publish()
	l.noteTail()
	l.recycle(batch)
	l.serveTruncate()
	l.retryReserve(false)
	l.mu.Lock()
	if l.compactNeeded() {
		signal(l.compactWake)
	}
	l.mu.Unlock()
}

// take swaps out the pending records, adding a meta record when the durable
// mark moved since the last one. final also closes the log to Append, and
// adds the meta even with nothing else pending.
func (l *Log) take(final bool) [][]pendingRec {
	l.mu.Lock()
	defer l.mu.Unlock()
	if (l.pending.n > 0 || final) && l.durableIndex > l.metaDurable {
		l.appendMeta()
	}
	if final {
		l.closed = true
	}
	l.pendingBytes = 0
	return l.pending.take()
}

// recycle hands written blocks back to the queue.
func (l *Log) recycle(batch [][]pendingRec) {
	l.mu.Lock()
	l.pending.recycle(batch)
	l.mu.Unlock()
}

// writeAll writes batch in chunks of at most chunkSize bytes (a chunk never
// spans two blocks).
func (l *Log) writeAll(batch [][]pendingRec) error {
	for _, block := range batch {
		for i := 0; i < len(block); {
			n, bytes := l.fill(block[i:])
			if err := l.writeChunk(block[i : i+n]); err != nil {
				return err
			}
			if bytes > 4*l.opts.chunkSize() {
				l.wbatch = twal.Batch{} // do not keep a huge job's buffer
			}
			i += n
		}
	}
	return nil
}

// fill encodes a prefix of recs into the tidwall batch and returns its
// length and size.
func (l *Log) fill(recs []pendingRec) (n, bytes int) {
	l.wbatch.Clear()
	l.sizes = l.sizes[:0]
	limit := l.opts.chunkSize()
	for n = range recs {
		if n > 0 && bytes >= limit {
			return n, bytes
		}
		p := &recs[n]
		if p.isMeta {
			l.scratch = appendMeta(l.scratch[:0], p.m)
		} else {
			l.scratch = AppendRecord(l.scratch[:0], &p.rec)
		}
		l.wbatch.Write(p.index, l.scratch)
		sz := entrySize(len(l.scratch))
		l.sizes = append(l.sizes, sz)
		bytes += sz
		if cap(l.scratch) > 1<<20 {
			l.scratch = nil
		}
	}
	return len(recs), bytes
}

// writeChunk hands one encoded chunk to tidwall/wal, recovering from a
// failure if it can, and advances the written marks.
func (l *Log) writeChunk(recs []pendingRec) error {
	pre := l.segs.tail() // only the writer changes segs
	if err := l.store.WriteBatch(&l.wbatch); err != nil {
		if err := l.recoverWrite(err, pre, recs); err != nil {
			return err
		}
	}
	var bytes int64
	l.mu.Lock()
	newSeg := l.segs.beginBatch(recs[0].index)
	for i := range recs {
		p := &recs[i]
		if l.segs.advance(p.index, l.sizes[i]) {
			newSeg = true
		}
		bytes += int64(l.sizes[i])
		if !p.isMeta {
			l.writtenSeq = p.seq
			l.written++
		}
	}
	l.writtenIndex = recs[len(recs)-1].index
	if l.lowSpace {
		l.lowSpent += bytes
	}
	l.mu.Unlock()
	l.dirty = true
	l.newSeg = l.newSeg || newSeg
	return nil
}

// fail kills the journal: nothing more is written, Committed reports err
// and Append refuses everything.
//
// Only the first failure is logged: it is the cause, and the one report of
// it.
func (l *Log) fail(err error) {
	l.mu.Lock()
	first := l.failed == nil
	if first {
		l.failed = err
		l.pending.recycle(l.pending.take())
	}
	l.cond.Broadcast()
	l.mu.Unlock()
	if first {
		l.log.Error().Err(err).Str("dir", l.dir).
			Msg("journal failed: changes after the last acknowledged one are refused until a restart")
	}
	l.failErr.CompareAndSwap(nil, &err)
	l.notify()
}

// shutdown writes what is pending, syncs, writes a final meta saying all
// before it is durable, syncs again and closes the segments. Writer (or
// Close, when no writer ever ran).
func (l *Log) shutdown() {
	if l.syncStop != nil {
		l.syncStop()
		l.syncC, l.syncStop = nil, nil
	}
	err := l.flushFinal()
	if err != nil {
		l.fail(err)
	}
	l.publish()
	l.mu.Lock()
	l.closed = true
	if l.failed != nil {
		err = l.failed
	}
	l.mu.Unlock()
	if cerr := l.store.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("wal: close: %w", cerr)
	}
	l.closeErr = err
}

func (l *Log) flushFinal() error {
	l.mu.Lock()
	failed := l.failed
	l.mu.Unlock()
	if failed != nil {
		return nil
	}
	for range 2 { // the records, then the final meta
		if err := l.writeAll(l.take(true)); err != nil {
			return err
		}
		if err := l.sync(); err != nil {
			return err
		}
	}
	l.noteTail()
	return nil
}

var _ jobs.Journal = (*Log)(nil)
