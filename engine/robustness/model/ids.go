package model

import (
	"fmt"
	"slices"
)

// CheckIDs checks what the model cannot see across groups: no id was
// acknowledged for two different puts, and ids grow in real time (a put
// acknowledged before another was sent has the lower id). Ids are
// compared only between acknowledged puts: an id spent on a put whose
// outcome is unknown may be handed out again in a cluster.
func CheckIDs(ops []Op) []string {
	type ack struct {
		id            uint64
		job           int
		call, return_ int64
	}
	var acks []ack
	for _, op := range ops {
		if op.Input.Kind == Put && !op.Output.Unknown && op.Output.Word == Inserted {
			acks = append(acks, ack{op.Output.ID, op.Input.Job, op.Call, op.Return})
		}
	}
	var bad []string
	byID := map[uint64]int{}
	for _, a := range acks {
		if j, ok := byID[a.id]; ok && j != a.job {
			bad = append(bad, fmt.Sprintf("id %d acknowledged for two puts (j%d and j%d)", a.id, j, a.job))
		}
		byID[a.id] = a.job
	}
	// Real-time order: sort by return; for each put, the highest id of
	// every put that returned before its call must be below its id.
	byReturn := slices.Clone(acks)
	slices.SortFunc(byReturn, func(a, b ack) int { return cmpInt(a.return_, b.return_) })
	byCall := slices.Clone(acks)
	slices.SortFunc(byCall, func(a, b ack) int { return cmpInt(a.call, b.call) })
	var hi ack
	r := 0
	for _, a := range byCall {
		for r < len(byReturn) && byReturn[r].return_ < a.call {
			if byReturn[r].id > hi.id {
				hi = byReturn[r]
			}
			r++
		}
		if hi.id != 0 && a.id <= hi.id && a.job != hi.job {
			bad = append(bad, fmt.Sprintf("put j%d got id %d, not above id %d of put j%d acknowledged before it was sent",
				a.job, a.id, hi.id, hi.job))
		}
	}
	return bad
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
