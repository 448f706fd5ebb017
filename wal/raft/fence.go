package raft

import (
	"math"

	hraft "github.com/hashicorp/raft"

	"github.com/stalkd/stalkd/jobs"
)

// Read fences. A leader cut off from its followers keeps its queue until
// it notices (within its lease), and the queue holds changes not yet
// committed: a peek answered from it may show a change that never
// commits, or miss one a new leader made meanwhile. The robustness suite
// caught both (a job released on a deposed leader seen ready by
// peek-ready, then reserved by nobody on the new one). So a command that
// only reads asks for a fence (jobs.Fencer) and its reply waits until the
// fence commits: after every record appended before it, and after a round
// that proves this node still leads - the raft entry that carries the next
// records, or, when none is pending, a VerifyLeader round (no log entry,
// no fsync). If leadership is lost first, the fence fails with the
// journal and the read is answered INTERNAL_ERROR.

// fenceKind marks a fence among the pending records; it is never encoded.
const fenceKind jobs.RecordKind = 0

// Fence implements jobs.Fencer: a sequence number that commits once this
// node has proved it leads after the call, and every record appended
// before it is committed. A dead journal returns a number that never
// commits (Committed then reports the error).
func (j *Journal) Fence() uint64 {
	j.mu.Lock()
	if j.dead != nil {
		j.mu.Unlock()
		return math.MaxUint64
	}
	j.seq++
	seq := j.seq
	j.pending = append(j.pending, jobs.Record{Kind: fenceKind})
	j.mu.Unlock()
	select {
	case j.wake <- struct{}{}:
	default:
	}
	return seq
}

// propose hands recs (the last one numbered last) to raft: as an entry
// without the fences, or, when they are all fences, as a VerifyLeader
// round.
func (j *Journal) propose(recs []jobs.Record) hraft.Future {
	real := recs[:0:0]
	size := 0
	for i := range recs {
		if recs[i].Kind != fenceKind {
			real = append(real, recs[i])
			size += recordSizeHint(&recs[i])
		}
	}
	if len(real) == 0 {
		return j.r.VerifyLeader()
	}
	// Counted before the hand-off, so that whoever sees raft take the
	// entry also sees it counted.
	j.counts.entries.Add(1)
	j.counts.records.Add(uint64(len(real)))
	return j.r.Apply(encodeEntry(real, size), j.applyWait)
}

var _ jobs.Fencer = (*Journal)(nil)
