//go:build failpoints

package wal

import (
	twal "github.com/tidwall/wal"

	"github.com/stalkd/stalkd/wal/failpoint"
)

// A test build (-tags failpoints) wraps the segment store so that the
// robustness suite can stall or fail its writes and fsyncs (package
// failpoint: points wal.write and wal.sync). Production builds compile
// failpoints_off.go instead.
func failpointStore(s store) store { return fpStore{s} }

func init() { failpoint.Start() }

type fpStore struct{ store }

func (s fpStore) WriteBatch(b *twal.Batch) error {
	if err := failpoint.Hit("wal.write"); err != nil {
		return err
	}
	return s.store.WriteBatch(b)
}

func (s fpStore) Sync() error {
	if err := failpoint.Hit("wal.sync"); err != nil {
		return err
	}
	return s.store.Sync()
}
