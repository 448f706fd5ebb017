package wal

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// The space reserve. DIR/reserve holds reserveSize bytes of real blocks
// (written, not sparse, and incompressible). When a write fails because the
// disk is full, the writer deletes it, retries, and enters low-space mode:
// new puts get ErrNoSpace at once, while deletes (and, within half the
// reserve, updates and compaction moves) keep being logged in the room it
// freed. After compaction frees segments, the reserve is written again;
// once that succeeds, puts are accepted again.

const reserveName = "reserve"

// setupReserve makes sure the reserve exists at Open. A disk too full for it
// starts the log in low-space mode rather than failing.
func (l *Log) setupReserve() error {
	path := filepath.Join(l.dir, reserveName)
	size := l.opts.reserveSize()
	if info, err := os.Stat(path); err == nil && info.Size() == size {
		l.reserveHeld = true
		return nil
	}
	if err := l.hook.makeReserve(path, size); err != nil {
		if !isNoSpace(err) {
			return fmt.Errorf("wal: space reserve: %w", err)
		}
		l.lowSpace = true
		l.log.Error().Err(err).Str("dir", l.dir).Msg("disk full: no room for the space reserve; puts will get OUT_OF_MEMORY until space is freed")
		return nil
	}
	l.reserveHeld = true
	return nil
}

// writeReserve writes the reserve file through a temporary name, so a
// partial reserve never looks complete.
func writeReserve(path string, size int64) error {
	tmp := path + ".tmp"
	err := fillFile(tmp, size)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func fillFile(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range chunk {
		chunk[i] = byte(r.Uint32())
	}
	for left := size; left > 0; left -= int64(len(chunk)) {
		if _, err := f.Write(chunk[:min(left, int64(len(chunk)))]); err != nil {
			return err
		}
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}

// releaseReserve deletes the reserve after a full-disk write failure and
// enters low-space mode. It reports false if there was no reserve left.
// The writer calls it (wmu held): it unlinks, and fsyncs nothing (room
// freed need not be durable; a reserve a crash brings back is simply kept).
func (l *Log) releaseReserve() bool {
	l.mu.Lock()
	held := l.reserveHeld
	l.reserveHeld, l.lowSpace, l.lowSpent = false, true, 0
	l.lastRetry = l.hook.now() // re-creating it at once would take the room back
	l.mu.Unlock()
	if !held {
		return false
	}
	path := filepath.Join(l.dir, reserveName)
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		l.log.Error().Err(err).Msg("cannot delete the space reserve")
		return false
	}
	l.log.Error().Str("dir", l.dir).Msg("disk full: released the space reserve; puts get OUT_OF_MEMORY, deletes are still logged, until space is freed")
	return true
}

// retryReserve tries to write the reserve again while in low-space mode
// (after compaction freed segments, or every few seconds). Sync goroutine
// only.
func (l *Log) retryReserve(force bool) {
	now := l.hook.now()
	l.mu.Lock()
	low, last := l.lowSpace, l.lastRetry
	if low && (force || now.Sub(last) >= reserveRetryEvery) {
		l.lastRetry = now
	}
	l.mu.Unlock()
	if !low || (!force && now.Sub(last) < reserveRetryEvery) {
		return
	}
	if err := l.hook.makeReserve(filepath.Join(l.dir, reserveName), l.opts.reserveSize()); err != nil {
		return
	}
	l.mu.Lock()
	l.reserveHeld, l.lowSpace, l.lowSpent = true, false, 0
	l.mu.Unlock()
	l.log.Warn().Str("dir", l.dir).Msg("disk space recovered: space reserve restored, puts accepted again")
}
