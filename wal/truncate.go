package wal

import (
	"fmt"
	"os"
	"path/filepath"
)

// cutFront removes every entry before index from the front of the log, the
// way tidwall/wal's TruncateFront does, so that its Open finishes a
// truncation a crash interrupted (load in open.go relies on it): the
// entries from index to the end of their segment are copied to a file
// TEMP, fsynced, renamed to NAME.START (NAME: index as a segment name), the
// older segment files are deleted, and NAME.START becomes NAME. The
// compactor cuts at the last entry of a segment, so the copy is one entry,
// and never in the tail segment: the writers keep appending to that one
// meanwhile. It returns the new first segment. Sync goroutine only; the
// caller fsyncs the directory.
func (l *Log) cutFront(index uint64) (segment, error) {
	l.mu.Lock()
	segs := append([]segment(nil), l.segs.segs...)
	l.mu.Unlock()
	k := len(segs) - 1
	for k > 0 && segs[k].start > index {
		k--
	}
	if k == len(segs)-1 || index < segs[k].start {
		return segment{}, fmt.Errorf("wal: truncation at entry %d outside the closed segments", index)
	}
	from := segmentPath(l.dir, segs[k].start)
	data, err := os.ReadFile(from)
	if err != nil {
		return segment{}, err
	}
	off := 0
	for i := segs[k].start; i < index; i++ {
		_, n, ferr := frame(data[off:])
		if ferr != nil {
			return segment{}, fmt.Errorf("wal: %s: entry %d: %w", from, i, ferr)
		}
		off += n
	}
	rest := data[off:]
	tmp := filepath.Join(l.dir, "TEMP")
	if err := writeSynced(tmp, rest); err != nil {
		return segment{}, fmt.Errorf("wal: truncation: %w", err)
	}
	name := segmentPath(l.dir, index)
	if err := os.Rename(tmp, name+".START"); err != nil {
		return segment{}, fmt.Errorf("wal: truncation: %w", err)
	}
	for _, s := range segs[:k+1] {
		if err := os.Remove(segmentPath(l.dir, s.start)); err != nil && !os.IsNotExist(err) {
			return segment{}, fmt.Errorf("wal: truncation: %w", err)
		}
	}
	if err := os.Rename(name+".START", name); err != nil {
		return segment{}, fmt.Errorf("wal: truncation: %w", err)
	}
	return segment{start: index, bytes: int64(len(rest))}, nil
}
