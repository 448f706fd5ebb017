//go:build !linux

package wal

import "os"

// fdatasync is fsync where the system has no fdatasync.
func fdatasync(f *os.File, _ int) error { return f.Sync() }

// writev writes bufs to f one by one where writev(2) is not used.
func writev(f *os.File, _ int, bufs [][]byte) (int, error) {
	total := 0
	for _, b := range bufs {
		n, err := f.Write(b)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}
