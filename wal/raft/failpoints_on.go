//go:build failpoints

package raft

import (
	hraft "github.com/hashicorp/raft"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal/failpoint"
)

// A test build (-tags failpoints) wraps the raft log store so that the
// robustness suite can stall or fail its stores (package failpoint: point
// raft.store), and gives the leader's queue a clock whose wall time the
// suite can step (point clock). Production builds compile
// failpoints_off.go instead.
func failpointLogs(s hraft.LogStore) hraft.LogStore { return fpLogs{s} }

func failpointClock() jobs.Clock { return failpoint.NewClock() }

func init() { failpoint.Start() }

type fpLogs struct{ hraft.LogStore }

func (s fpLogs) StoreLog(l *hraft.Log) error {
	if err := failpoint.Hit("raft.store"); err != nil {
		return err
	}
	return s.LogStore.StoreLog(l)
}

func (s fpLogs) StoreLogs(ls []*hraft.Log) error {
	if err := failpoint.Hit("raft.store"); err != nil {
		return err
	}
	return s.LogStore.StoreLogs(ls)
}
