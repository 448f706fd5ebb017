package wal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	twal "github.com/tidwall/wal"
)

// store is the part of *tidwall/wal.Log the journal uses. Only the writer
// goroutine touches it once Replay has started (Open and Close otherwise).
// Tests wrap it to inject faults.
type store interface {
	WriteBatch(b *twal.Batch) error
	Sync() error
	TruncateFront(index uint64) error
	LastIndex() (uint64, error)
	Close() error
}

// openTidwall opens the segments in dir. tidwall/wal's Open modifies the
// options it is given, so each call gets a fresh value; it never fsyncs on
// its own (NoSync): the writer calls Sync as the policy says.
func openTidwall(dir string, segmentSize int64) (store, error) {
	w, err := twal.Open(dir, &twal.Options{
		NoSync:           true,
		SegmentSize:      int(segmentSize),
		LogFormat:        twal.Binary,
		SegmentCacheSize: 1,
		DirPerms:         0o750,
		FilePerms:        0o640,
	})
	if err != nil {
		return nil, fmt.Errorf("wal: open segments in %s: %w", dir, err)
	}
	return failpointStore(w), nil
}

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
