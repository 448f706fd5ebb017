package wal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/jobs"
)

// DirInfo is what ReadJobs found in a log.
type DirInfo struct {
	// Jobs is how many live jobs the log holds.
	Jobs int
	// NextID is the id a server opening the log would hand out first: above
	// every id the log and its id lease ever named.
	NextID uint64
	// Policies counts the tubes with a policy in the log.
	Policies int
	// TornBytes is the size of an unfinished tail of the last segment
	// (a crash mid-write): Open would cut it off; ReadJobs ignores it.
	TornBytes int
}

// ReadJobs reads the log in dir, which no server may be using, and calls
// fn with the whole record of each live job in order of first appearance
// (a reserved job as ready, as a restart restores it). It changes nothing
// on disk: no repair, no manifest, no lock written. It refuses a directory
// a server holds (ErrLocked), a log damaged anywhere but its torn tail
// (ErrCorrupt; open it once with the salvage option), and a directory
// holding no log of stalkd's. fn must not keep r or its Body beyond the
// call.
func ReadJobs(dir string, fn func(r *jobs.Record)) (DirInfo, error) {
	unlock, err := holdShared(dir)
	if err != nil {
		return DirInfo{}, err
	}
	defer unlock()
	c, err := readContents(dir)
	if err != nil {
		return DirInfo{}, err
	}
	if c.pending != "" || !c.ownLog {
		return DirInfo{}, fmt.Errorf("wal: %s holds no log of stalkd's (or an import not finished: start stalkd on it once)", dir)
	}
	files, interrupted, err := listSegments(dir)
	if err != nil {
		return DirInfo{}, err
	}
	if interrupted {
		return DirInfo{}, fmt.Errorf("%w: %s holds an unfinished segment truncation: start stalkd on it once to finish it", ErrCorrupt, dir)
	}
	man, found, err := readManifest(dir)
	if err != nil {
		return DirInfo{}, err
	}
	sc := newScan(false, zerolog.Nop())
	if err := sc.run(files); err != nil {
		return DirInfo{}, err
	}
	files = sc.kept(files)
	var mp *manifest
	if found {
		mp = &man
	}
	if err := sc.checkEnd(dir, files, mp); err != nil {
		return DirInfo{}, err
	}
	info := DirInfo{NextID: max(sc.img.maxID, man.idLease) + 1, Policies: len(sc.img.policyRecords())}
	if sc.torn != nil {
		info.TornBytes = sc.torn.dropped
	}
	sc.img.each(func(r *jobs.Record) {
		rec := *r
		if rec.State == jobs.Reserved {
			rec.State, rec.Deadline = jobs.Ready, 0
		}
		info.Jobs++
		fn(&rec)
	})
	return info, nil
}

// holdShared takes a shared flock on DIR/lock, if it exists, so that no
// server opens the log while it is read (a server's exclusive lock
// refuses ours, and ours refuses its). Nothing is written.
func holdShared(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, "lock")
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return func() {}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("wal: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s (stop the server first)", ErrLocked, path)
		}
		return nil, fmt.Errorf("wal: lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}
