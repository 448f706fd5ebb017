package wal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrLocked is returned by Open when another process (or another Log in
// this one) holds the directory.
var ErrLocked = errors.New("wal: directory is locked by another server")

// dirLock is an exclusive flock(2) on DIR/lock, held for the life of a Log.
// flock locks belong to the open file, so a second Open in the same process
// is refused too.
type dirLock struct{ f *os.File }

func lockDir(dir string) (*dirLock, error) {
	path := filepath.Join(dir, "lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("wal: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s (pid %s)", ErrLocked, path, strings.TrimSpace(string(holder)))
		}
		return nil, fmt.Errorf("wal: lock %s: %w", path, err)
	}
	// beanstalkd locks the same file with fcntl(F_SETLK), a lock flock does
	// not see: take that one too, so that stalkd refuses a directory a
	// running beanstalkd holds, and beanstalkd (which exits with status
	// 10) one that stalkd holds. fcntl locks are the process's: closing any
	// descriptor of the file in this process drops it (flock still guards).
	if err := fcntlLock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s: %v", ErrLocked, path, err)
	}
	// Best effort: the pid only makes the refusal message helpful.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dirLock{f: f}, nil
}

func (d *dirLock) unlock() error {
	syscall.Flock(int(d.f.Fd()), syscall.LOCK_UN)
	return d.f.Close()
}

// fcntlLock takes a write lock on the whole of f with fcntl(F_SETLK), as
// beanstalkd does on its DIR/lock, and names the holder when refused.
func fcntlLock(f *os.File) error {
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0}
	err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk)
	if err == nil {
		return nil
	}
	if !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EACCES) {
		return fmt.Errorf("fcntl lock: %w", err)
	}
	who := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0}
	if syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &who) == nil && who.Type != syscall.F_UNLCK {
		return fmt.Errorf("held with fcntl by pid %d (beanstalkd, if it runs on this directory)", who.Pid)
	}
	return errors.New("held with fcntl by another process (beanstalkd, if it runs on this directory)")
}
