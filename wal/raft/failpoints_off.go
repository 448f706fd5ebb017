//go:build !failpoints

package raft

import (
	hraft "github.com/hashicorp/raft"

	"github.com/stalkd/stalkd/jobs"
)

// failpointLogs and failpointClock are the seams of the robustness suite's
// disk and clock faults: the raft-wal store and the system clock here;
// failpoints_on.go (-tags failpoints) wraps them.
func failpointLogs(s hraft.LogStore) hraft.LogStore { return s }

func failpointClock() jobs.Clock { return jobs.NewSystemClock() }
