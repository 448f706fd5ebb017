//go:build failpoints

package wal

import "github.com/stalkd/stalkd/wal/failpoint"

// A test build (-tags failpoints) wraps each segment file so that the
// robustness suite can stall or fail its writes and fsyncs (package
// failpoint: points wal.write and wal.sync). Production builds compile
// failpoints_off.go instead.
func failpointFile(f appendFile) appendFile { return fpFile{f} }

func init() { failpoint.Start() }

type fpFile struct{ appendFile }

func (f fpFile) Writev(bufs [][]byte) (int, error) {
	if err := failpoint.Hit("wal.write"); err != nil {
		return 0, err
	}
	return f.appendFile.Writev(bufs)
}

func (f fpFile) Sync() error {
	if err := failpoint.Hit("wal.sync"); err != nil {
		return err
	}
	return f.appendFile.Sync()
}
