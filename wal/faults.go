package wal

import (
	"fmt"
	"os"
)

// Write failures. tidwall/wal keeps the current segment in memory and
// appends to it before writing, so after a failed write its picture no
// longer matches the file (which may hold part of the batch). The writer
// therefore rolls the directory back to where it was before the chunk:
// closes tidwall/wal, deletes segment files the chunk created, truncates the
// current one to its old size, and reopens. Then:
//   - disk full (ENOSPC, EDQUOT): release the space reserve and retry once;
//   - anything else, or a second failure: the journal is dead (fail).

// recoverWrite handles a failed WriteBatch of recs; pre is the current
// segment before it. It returns nil once the chunk is written. It logs
// nothing itself: a failure it returns is logged once, by fail, and a
// full disk it recovers from is logged by releaseReserve.
func (l *Log) recoverWrite(err error, pre segment, recs []pendingRec) error {
	if rerr := l.rollback(pre); rerr != nil {
		return fmt.Errorf("wal: write: %w (and rolling back failed: %v)", err, rerr)
	}
	if !isNoSpace(err) || !l.releaseReserve() {
		return fmt.Errorf("wal: write: %w", err)
	}
	l.fill(recs) // the failed attempt may have consumed the batch
	if err := l.store.WriteBatch(&l.wbatch); err != nil {
		if rerr := l.rollback(pre); rerr != nil {
			return fmt.Errorf("wal: write after releasing the space reserve: %w (and rolling back failed: %v)", err, rerr)
		}
		return fmt.Errorf("wal: write after releasing the space reserve: %w", err)
	}
	return nil
}

// rollback restores the segment files to pre being the current segment with
// pre.bytes bytes, and reopens tidwall/wal on them.
func (l *Log) rollback(pre segment) error {
	l.store.Close() // may fail (it fsyncs); the files are fixed below anyway
	files, _, err := listSegments(l.dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		if f.start > pre.start {
			if err := os.Remove(f.path); err != nil {
				return err
			}
		}
	}
	path := segmentPath(l.dir, pre.start)
	if info, err := os.Stat(path); err != nil {
		return err
	} else if info.Size() < pre.bytes {
		return fmt.Errorf("%s holds %d bytes, fewer than the %d already written", path, info.Size(), pre.bytes)
	}
	if err := os.Truncate(path, pre.bytes); err != nil {
		return err
	}
	if err := syncFile(path); err != nil {
		return err
	}
	if err := syncDir(l.dir); err != nil {
		return err
	}
	st, err := l.hook.openStore(l.dir, l.opts.SegmentSize)
	if err != nil {
		return err
	}
	l.store = st
	return nil
}
