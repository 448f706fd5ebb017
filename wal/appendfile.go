package wal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// appendFile is an open segment file, opened for appending. The journal's
// writer (whichever goroutine holds Log.wmu: an event loop, the sync
// goroutine, Close) appends to the current one and truncates it back after a
// failed write; the sync goroutine fsyncs it and the retired ones, and is the
// only one to close them. Tests wrap it to inject faults and to simulate a
// power loss (dropping what was never synced).
type appendFile interface {
	// Writev appends the buffers, in order, with one writev(2) (the file
	// is opened O_APPEND: after Truncate the next write lands at the new
	// end), and returns how many bytes were written: less than all only
	// with an error.
	Writev(bufs [][]byte) (int, error)
	// Sync makes the file's data durable (fdatasync: an appended file's
	// size is part of what it writes).
	Sync() error
	// Truncate cuts the file to size bytes.
	Truncate(size int64) error
	Close() error
}

// openSegment opens the segment file at path for appending, creating it
// empty when create is set (truncating a leftover of the same name, as
// tidwall/wal does).
func openSegment(path string, create bool) (appendFile, error) {
	flag := os.O_WRONLY | os.O_APPEND
	if create {
		flag |= os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flag, 0o640)
	if err != nil {
		return nil, err
	}
	return failpointFile(&osSegment{File: f, fd: int(f.Fd())}), nil
}

// osSegment is a segment file on the real file system. fd is the File's
// descriptor (a regular file never goes through the poller), kept so that
// a write is one system call and no allocation.
type osSegment struct {
	*os.File
	fd int
}

func (s *osSegment) Sync() error { return fdatasync(s.File, s.fd) }

func (s *osSegment) Writev(bufs [][]byte) (int, error) { return writev(s.File, s.fd, bufs) }

// isNoSpace reports a full disk or an exhausted quota.
func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// syncDir fsyncs a directory, making file creations, renames and removals
// in it durable.
func syncDir(dir string) error { return syncClose(os.Open(dir)) }

// syncFile fsyncs the file at path.
func syncFile(path string) error { return syncClose(os.OpenFile(path, os.O_WRONLY, 0)) }

// syncClose fsyncs and closes f, just opened (or not: err), and returns the
// first error.
func syncClose(f *os.File, err error) error {
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// segmentPath is the file of the segment whose first index is start (the
// name tidwall/wal gives it).
func segmentPath(dir string, start uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%020d", start))
}

// advance drops the first n bytes from bufs (a partial writev).
func advance(bufs [][]byte, n int) [][]byte {
	for len(bufs) > 0 && n >= len(bufs[0]) {
		n -= len(bufs[0])
		bufs = bufs[1:]
	}
	if len(bufs) > 0 {
		bufs[0] = bufs[0][n:]
	}
	return bufs
}
