package wal

import (
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// fdatasync makes f's data durable, and the metadata needed to read it back
// (an appended file's size), but not its times. fd is f's descriptor.
func fdatasync(f *os.File, fd int) error {
	var err error
	for {
		if err = syscall.Fdatasync(fd); err != syscall.EINTR {
			break
		}
	}
	runtime.KeepAlive(f)
	if err != nil {
		return &os.PathError{Op: "fdatasync", Path: f.Name(), Err: err}
	}
	return nil
}

// writev writes bufs to f (descriptor fd), in order, with as few writev(2)
// calls as the kernel allows (one, unless it takes part of them), and
// returns the bytes written. It may reslice bufs' elements.
func writev(f *os.File, fd int, bufs [][]byte) (int, error) {
	total := 0
	var err error
	for len(bufs) > 0 {
		var n int
		n, err = unix.Writev(fd, bufs)
		if n > 0 {
			total += n
		}
		if err == syscall.EINTR {
			err = nil
			continue
		}
		if err != nil {
			break
		}
		if n == 0 {
			err = syscall.EIO
			break
		}
		bufs = advance(bufs, n)
	}
	runtime.KeepAlive(f)
	if err != nil {
		return total, &os.PathError{Op: "writev", Path: f.Name(), Err: err}
	}
	return total, nil
}
