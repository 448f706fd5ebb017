package wal

import "github.com/stalkd/stalkd/jobs"

// queue is what the Log needs of *jobs.Queue (a fake in tests).
type queue interface {
	Restore(rec jobs.Record) error
	EnsureNextID(next uint64)
	Rewrite(id uint64) (seq uint64, ok bool)
}
