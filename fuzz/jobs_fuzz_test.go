package fuzz

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs/jobsmodel"
)

// maxQueueOps bounds the operations of one input, so that every input runs
// in milliseconds.
const maxQueueOps = 400

// FuzzQueue reads the input as a command tape for one to four sessions of
// a jobs.Queue - five bytes per operation: kind, session, three argument
// bytes (see jobsmodel.Harness.DecodeOp) - and runs it against the queue
// and against the naive model of package jobs/jobsmodel, comparing every
// reply and the whole observable state after each operation.
//
//	go test ./fuzz -run=^$ -fuzz=FuzzQueue -fuzztime=3m
func FuzzQueue(f *testing.F) {
	op := func(kind jobsmodel.Kind, slot, a1, a2, a3 byte) []byte {
		return []byte{byte(kind), slot, a1, a2, a3}
	}
	cat := func(ops ...[]byte) []byte {
		var t []byte
		for _, o := range ops {
			t = append(t, o...)
		}
		return t
	}
	// A worker waits holding a job with a 2 s TTR in a tube it no longer
	// watches, and the clock jumps past the TTR: DEADLINE_SOON.
	f.Add(uint8(1), cat(op(jobsmodel.Use, 0, 0, 1, 0), op(jobsmodel.Watch, 0, 0, 1, 0),
		op(jobsmodel.Put, 0, 0, 0, 2), op(jobsmodel.Reserve, 0, 0, 0, 2),
		op(jobsmodel.Ignore, 0, 0, 1, 0), op(jobsmodel.Reserve, 0, 0, 0, 0),
		op(jobsmodel.Advance, 0, 0, 0, 8), op(jobsmodel.Take, 0, 0, 0, 0)))
	// Two jobs with the same delay, two waiters.
	f.Add(uint8(2), cat(op(jobsmodel.Put, 0, 0, 0, 24), op(jobsmodel.Put, 0, 0, 1, 24),
		op(jobsmodel.Reserve, 1, 0, 0, 0), op(jobsmodel.Reserve, 2, 0, 0, 0),
		op(jobsmodel.Advance, 0, 0, 0, 7), op(jobsmodel.Take, 1, 0, 0, 0), op(jobsmodel.Take, 2, 0, 0, 0)))
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 42))
		f.Add(uint8(seed), jobsmodel.RandomTape(r, 300))
	}
	f.Fuzz(func(t *testing.T, sessions uint8, tape []byte) {
		h := jobsmodel.NewHarness(1 + int(sessions%4))
		var trail []string
		for step := 0; step < maxQueueOps; step++ {
			op, rest, ok := h.DecodeOp(tape)
			if !ok {
				break
			}
			tape = rest
			trail = append(trail, op.String())
			if err := h.Step(op); err != nil {
				t.Fatalf("step %d: %v\noperations:\n%q", step, err, trail)
			}
		}
		require.NoError(t, h.Close())
	})
}
