package wal

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/stalkd/stalkd/jobs"
)

// Writing. Append only queues a record; Flush writes every queued record
// to the current segment file, encoded into one buffer and handed to the
// kernel with one writev(2) per chunk (at most a quarter of the space
// reserve; a large body is gathered from the job's own memory, not copied
// into the buffer), on the caller's goroutine: a server's event loop at the end of
// its batch of commands, as beanstalkd and Redis's append-only file do. The
// page cache takes the bytes; the fsync is the sync goroutine's (sync.go),
// so a write never waits for the disk, and no lock a writer takes is held
// across an fsync. Writers are serialized by wmu: one that finds its
// records already taken waits for that write(2), then returns. With -f MS
// and -F a record is committed as soon as it is written; with -f0 the sync
// goroutine commits it after the fsync that covers it, so records written
// while it syncs form the next group.
//
// A full segment is not synced by the writer: it goes to the retired list,
// and the sync goroutine fsyncs and closes it; the next entry starts a new
// segment file.

// errDead stops a writer that finds the journal failed under it (the
// failure was reported where it happened).
var errDead = errors.New("wal: journal failed")

// Flush implements jobs.Flusher: it writes every record appended before the
// call (by any goroutine) to the operating system, or returns once another
// writer has. It never fsyncs and never waits for an fsync; it may wait for
// another goroutine's write(2). A write failure kills the journal
// (Committed reports it). Safe for concurrent use; call it with no lock of
// the queue held.
func (l *Log) Flush() {
	target := l.appended.Load()
	if l.flushed.Load() >= target {
		return
	}
	l.wmu.Lock()
	if l.flushed.Load() < target {
		l.writePending()
	}
	l.wmu.Unlock()
}

// writePending writes everything queued. wmu held.
func (l *Log) writePending() {
	batch := l.take(false)
	if len(batch) == 0 {
		return
	}
	err := l.writeAll(batch)
	l.recycle(batch)
	if err != nil && err != errDead {
		l.fail(err)
	}
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

// writeAll encodes batch into chunks and writes them, starting a new
// segment file where the current one is full. wmu held.
func (l *Log) writeAll(batch [][]pendingRec) error {
	for _, block := range batch {
		for i := range block {
			if err := l.add(&block[i]); err != nil {
				return err
			}
		}
	}
	return l.writeChunk()
}

// add encodes p into the chunk, writing the chunk first when p starts a new
// segment, and after it when the chunk is large enough. A put's large body
// is not copied: the chunk notes where it goes (writeChunk gathers it).
func (l *Log) add(p *pendingRec) error {
	if l.tailBytes+int64(l.wsize) >= l.opts.SegmentSize && l.tailBytes+int64(l.wsize) > 0 {
		if err := l.writeChunk(); err != nil {
			return err
		}
		if err := l.rotate(p.index); err != nil {
			return err
		}
	}
	start := len(l.wbuf)
	gathered := 0
	switch {
	case p.isMeta:
		l.wbuf = binary.AppendUvarint(l.wbuf, uint64(metaSize(p.m)))
		l.wbuf = appendMeta(l.wbuf, p.m)
	case p.rec.Kind == jobs.RecPut && len(p.rec.Body) >= gatherMin:
		l.wbuf = binary.AppendUvarint(l.wbuf, uint64(recordSize(&p.rec)))
		var at int
		l.wbuf, at = appendRecordAround(l.wbuf, &p.rec)
		l.wcuts = append(l.wcuts, bodyCut{at: at, body: p.rec.Body})
		gathered = len(p.rec.Body)
	default:
		l.wbuf = binary.AppendUvarint(l.wbuf, uint64(recordSize(&p.rec)))
		l.wbuf = AppendRecord(l.wbuf, &p.rec)
	}
	size := len(l.wbuf) - start + gathered
	l.wsize += size
	l.wchunk = append(l.wchunk, chunkEntry{index: p.index, seq: p.seq, size: int32(size), isMeta: p.isMeta})
	if l.wsize >= l.opts.chunkSize() || len(l.wcuts) >= maxCuts {
		return l.writeChunk()
	}
	return nil
}

// gatherMin is the body size from which a put's body is written from the
// job's memory (writev) rather than copied into the chunk; maxCuts bounds
// the bodies gathered into one writev (IOV_MAX is 1024 buffers).
const (
	gatherMin = 4 << 10
	maxCuts   = 500
)

// bodyCut is a body that goes into the chunk at wbuf offset at.
type bodyCut struct {
	at   int
	body []byte
}

// writeChunk writes the encoded chunk to the current segment file with one
// writev(2), recovering from a failure if it can, and advances the written
// marks (and, unless -f0, Committed).
func (l *Log) writeChunk() error {
	if len(l.wchunk) == 0 {
		return nil
	}
	defer l.resetChunk()
	pre := l.tailBytes
	if _, err := l.cur.Writev(l.gather()); err != nil {
		if err := l.recoverWrite(err, pre); err != nil {
			return err
		}
	}
	l.tailBytes += int64(l.wsize)
	wake := false
	l.mu.Lock()
	if l.failed != nil {
		l.mu.Unlock()
		return errDead // an fsync failed meanwhile: nothing more is acknowledged
	}
	clean := l.writtenIndex == l.durableIndex
	for _, e := range l.wchunk {
		l.segs.advance(int(e.size))
		if !e.isMeta {
			l.writtenSeq = e.seq
			l.written++
		}
	}
	l.writtenIndex = l.wchunk[len(l.wchunk)-1].index
	if l.lowSpace {
		l.lowSpent += int64(l.wsize)
	}
	switch {
	case l.syncEvery():
		wake = true // the fsync that commits these
	case !l.opts.NoSync && clean:
		wake = true // the first write since an fsync arms the -f timer
	}
	if !l.syncEvery() {
		l.committed.Store(l.writtenSeq)
	}
	l.flushed.Store(l.writtenSeq)
	l.mu.Unlock()
	if wake {
		signal(l.wake)
	}
	return nil
}

// gather lists the chunk's buffers for writev: the encoded bytes, with each
// gathered body in its place.
func (l *Log) gather() [][]byte {
	bufs, prev := l.wiov[:0], 0
	for _, c := range l.wcuts {
		bufs = append(bufs, l.wbuf[prev:c.at], c.body)
		prev = c.at
	}
	l.wiov = append(bufs, l.wbuf[prev:])
	return l.wiov
}

// resetChunk empties the chunk, dropping a buffer a huge record grew and the
// chunk's references to job bodies.
func (l *Log) resetChunk() {
	l.wbuf, l.wchunk, l.wsize = l.wbuf[:0], l.wchunk[:0], 0
	clear(l.wcuts)
	l.wcuts = l.wcuts[:0]
	clear(l.wiov)
	if cap(l.wbuf) > 4*l.opts.chunkSize() {
		l.wbuf = nil
	}
}

// rotate starts a new segment file whose first entry is first; the full one
// is retired, for the sync goroutine to fsync and close. wmu held.
func (l *Log) rotate(first uint64) error {
	f, err := l.hook.openSegment(segmentPath(l.dir, first), true)
	if err != nil && isNoSpace(err) && l.releaseReserve() {
		f, err = l.hook.openSegment(segmentPath(l.dir, first), true)
	}
	if err != nil {
		return fmt.Errorf("wal: create segment: %w", err)
	}
	l.mu.Lock()
	l.retired = append(l.retired, retiredSeg{f: l.cur, lastIndex: l.writtenIndex, lastSeq: l.writtenSeq})
	l.cur = f
	l.segs.rotate(first)
	l.newSeg = true
	l.mu.Unlock()
	l.tailBytes = 0
	signal(l.wake)
	return nil
}

// syncEvery reports -f0: a change is committed only by the fsync that
// covers it.
func (l *Log) syncEvery() bool { return l.opts.SyncInterval == 0 && !l.opts.NoSync }

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
// before it is durable, syncs again and closes the segment files. Sync
// goroutine (or Close, when none ever ran).
func (l *Log) shutdown() {
	for _, stop := range []*func() bool{&l.syncStop, &l.tickStop} {
		if *stop != nil {
			(*stop)()
			*stop = nil
		}
	}
	l.syncC, l.tickC = nil, nil
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
	files := []appendFile{l.cur}
	for _, r := range l.retired {
		files = append(files, r.f)
	}
	l.retired = nil
	l.mu.Unlock()
	for _, f := range files {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("wal: close: %w", cerr)
		}
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
	l.wmu.Lock()
	defer l.wmu.Unlock()
	for range 2 { // the records, then the final meta
		batch := l.take(true)
		err := l.writeAll(batch)
		l.recycle(batch)
		if err != nil {
			return err
		}
		if err := l.sync(); err != nil {
			return err
		}
	}
	l.noteTail()
	return nil
}

var (
	_ jobs.Journal = (*Log)(nil)
	_ jobs.Flusher = (*Log)(nil)
)
