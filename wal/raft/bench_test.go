package raft

import (
	"fmt"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/jobs"
)

// benchState is a state of n ready jobs of 100-byte bodies in 10 tubes.
func benchState(n int) *fsm {
	f := newFSM(zerolog.Nop())
	body := make([]byte, 100)
	for i := 1; i <= n; i++ {
		f.st.apply(&jobs.Record{Kind: jobs.RecPut, ID: uint64(i), Tube: fmt.Sprint("t", i%10), State: jobs.Ready,
			Pri: uint32(i % 7), TTR: time.Minute, Created: 1, Body: body})
	}
	return f
}

// BenchmarkPromote: what a new leader spends rebuilding its queue, per
// 100k jobs (the failover's O(jobs) part).
func BenchmarkPromote(b *testing.B) {
	f := benchState(100_000)
	b.ResetTimer()
	for range b.N {
		q := jobs.New(jobs.Config{Replicated: true})
		if err := f.st.restoreInto(q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshotCopy: how long a snapshot holds the FSM (copying the
// job table), per 100k jobs.
func BenchmarkSnapshotCopy(b *testing.B) {
	f := benchState(100_000)
	b.ResetTimer()
	for range b.N {
		s, _ := f.Snapshot()
		s.Release()
	}
}
