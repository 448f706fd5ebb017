package wal

import (
	"fmt"
)

// Write failures. A chunk is one write(2) to the current segment file, which
// may have taken part of it before failing. The writer cuts the file back
// to where it was before the chunk (the file is opened O_APPEND, so the
// retry lands where the chunk should have), then:
//   - disk full (ENOSPC, EDQUOT): release the space reserve and retry once;
//   - anything else, or a second failure: the journal is dead (fail), and
//     the file ends at its last complete record, so the next start finds a
//     clean log.
//
// Neither step fsyncs: the writer may be an event loop. A cut that a crash
// loses leaves the partial chunk after the last complete record, which Open
// repairs as a torn tail (no meta after it vouches for it).

// recoverWrite handles a failed write of the chunk to a segment file that
// held pre bytes before it. It returns nil once the chunk is written. It
// logs nothing itself: a failure it returns is logged once, by fail, and a
// full disk it recovers from is logged by releaseReserve. wmu held.
func (l *Log) recoverWrite(err error, pre int64) error {
	if terr := l.cur.Truncate(pre); terr != nil {
		return fmt.Errorf("wal: write: %w (and cutting the partial write off failed: %v)", err, terr)
	}
	if !isNoSpace(err) || !l.releaseReserve() {
		return fmt.Errorf("wal: write: %w", err)
	}
	if _, err := l.cur.Writev(l.gather()); err != nil {
		if terr := l.cur.Truncate(pre); terr != nil {
			return fmt.Errorf("wal: write after releasing the space reserve: %w (and cutting the partial write off failed: %v)", err, terr)
		}
		return fmt.Errorf("wal: write after releasing the space reserve: %w", err)
	}
	return nil
}
