package wal

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// fdatasync makes f's data durable, and the metadata needed to read it back
// (an appended file's size), but not its times.
func fdatasync(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		for {
			serr = syscall.Fdatasync(int(fd))
			if serr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	if serr != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: serr}
	}
	return nil
}

// writev writes bufs to f, in order, with as few writev(2) calls as the
// kernel allows (one, unless it takes part of them), and returns the bytes
// written.
func writev(f *os.File, bufs [][]byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	total := 0
	var werr error
	if err := rc.Control(func(fd uintptr) {
		for len(bufs) > 0 {
			n, err := unix.Writev(int(fd), bufs)
			if n > 0 {
				total += n
			}
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				werr = err
				return
			}
			if n == 0 {
				werr = syscall.EIO
				return
			}
			bufs = advance(bufs, n)
		}
	}); err != nil {
		return total, err
	}
	if werr != nil {
		return total, &os.PathError{Op: "writev", Path: f.Name(), Err: werr}
	}
	return total, nil
}
