package fuzz

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal/raft"
)

// raftRecords holds a record of every kind the replicated log carries.
func raftRecords() []jobs.Record {
	return []jobs.Record{
		{Kind: jobs.RecPut, ID: 1, Tube: "default", State: jobs.Ready, Pri: 1024, TTR: time.Second, Created: 1, Body: []byte("hi")},
		{Kind: jobs.RecPut, ID: 1 << 40, Tube: "t", State: jobs.Delayed, Delay: time.Hour, Deadline: 1 << 62, Body: []byte{}},
		{Kind: jobs.RecUpdate, ID: 9, State: jobs.Reserved, Pri: 7, TTR: time.Minute, Deadline: 5, Reserves: 2},
		{Kind: jobs.RecUpdate, ID: 9, State: jobs.Buried, Pri: 7, Buries: 3, Kicks: 1},
		{Kind: jobs.RecDelete, ID: 12345},
		{Kind: jobs.RecClear, IDs: []uint64{3, 4, 9, 1 << 50, 2}},
		{Kind: jobs.RecPause, Tube: "emails", Delay: time.Minute, Deadline: 1_700_000_060_000_000_000},
		{Kind: jobs.RecPolicy, Tube: "emails", Policy: &jobs.PolicyRecord{Policy: jobs.Policy{MaxReserves: 3, DeadLetter: "dead", MaxReady: 9,
			ReserveRate: 1.5, Schedule: []jobs.Schedule{{Cron: "*/5 * * * *", Body: "x", Priority: 1, TTR: 2}}},
			Fired: []int64{1_700_000_000_000_000_000}}},
		{Kind: jobs.RecPolicy, Tube: "gone"},
		{Kind: jobs.RecPolicy, Tube: "capped", Policy: &jobs.PolicyRecord{Policy: jobs.Policy{MaxReady: 2, Overflow: jobs.OverflowBury}}},
		{Kind: jobs.RecPolicySet, Policy: &jobs.PolicyRecord{Tubes: []jobs.TubePolicyRecord{
			{Tube: "a", PolicyRecord: jobs.PolicyRecord{Policy: jobs.Policy{MaxReady: 1, Overflow: jobs.OverflowDeadLetter, DeadLetter: "b"}}}}}},
		{Kind: jobs.RecPut, ID: 5, Tube: "emails", State: jobs.Ready, TTR: time.Second, Body: []byte("x"),
			Sched: 1, SchedAt: 1_700_000_300_000_000_000},
		{Kind: jobs.RecPut, ID: 6, Tube: "emails-dead", State: jobs.Ready, TTR: time.Second, Releases: 3, Body: []byte("y"),
			Dead: &jobs.DeadLetter{Origin: "emails", Reason: jobs.DeadReleased, At: 1_700_000_400_000_000_000}},
		{Kind: jobs.RecPut, ID: 7, Tube: "d", State: jobs.Buried, TTR: time.Second, Body: []byte{},
			Sched: 3, SchedAt: -1, Dead: &jobs.DeadLetter{Origin: "o", Reason: jobs.DeadOverflow, At: -2}},
	}
}

// FuzzRaftEntry feeds arbitrary bytes to the decoder every node's FSM runs
// on each committed entry (raft.DecodeEntry, and DecodeAnnouncement for a
// leader's announcement): it must never panic, and what it accepts must
// encode and decode back to itself.
//
//	go test ./fuzz -run=^$ -fuzz=FuzzRaftEntry -fuzztime=2m
func FuzzRaftEntry(f *testing.F) {
	recs := raftRecords()
	f.Add(raft.EncodeEntry(recs))
	for i := range recs {
		f.Add(raft.EncodeEntry(recs[i : i+1]))
	}
	f.Add(raft.EncodeAnnouncement("n1", raft.Announcement{Term: 3, Addr: "10.0.0.1:40123"}))
	f.Add([]byte{})
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if id, a, err := raft.DecodeAnnouncement(data); err == nil {
			require.NotEmpty(t, id)
			id2, a2, err := raft.DecodeAnnouncement(raft.EncodeAnnouncement(id, a))
			require.NoError(t, err)
			require.Equal(t, id, id2)
			require.Equal(t, a, a2)
		}
		got, err := raft.DecodeEntry(data)
		if err != nil {
			return
		}
		for _, r := range got {
			switch r.Kind {
			case jobs.RecClear:
				require.Zero(t, r.ID, "a clear carries only IDs")
				require.NotContains(t, r.IDs, uint64(0))
			case jobs.RecPause:
				require.NotEmpty(t, r.Tube)
				require.Positive(t, r.Delay)
			case jobs.RecPolicy:
				require.Zero(t, r.ID, "a policy carries no job")
				require.NotEmpty(t, r.Tube)
				if r.Policy != nil {
					require.NoError(t, r.Policy.Validate())
					require.Len(t, r.Policy.Fired, len(r.Policy.Schedule))
				}
			case jobs.RecPolicySet:
				require.Zero(t, r.ID, "a policy set carries no job")
				for _, tp := range r.Policy.Tubes {
					require.NoError(t, tp.Validate())
					require.Len(t, tp.Fired, len(tp.Schedule))
				}
			case jobs.RecPut:
				require.NotZero(t, r.ID)
				require.NotEmpty(t, r.Tube)
				require.NotNil(t, r.Body)
			case jobs.RecUpdate, jobs.RecDelete:
				require.NotZero(t, r.ID)
			default:
				t.Fatalf("kind %v accepted", r.Kind)
			}
		}
		again, err := raft.DecodeEntry(raft.EncodeEntry(got))
		require.NoError(t, err)
		require.Equal(t, got, again)
	})
}

// FuzzRaftSnapshot feeds arbitrary bytes to the reader a node restores a
// snapshot with (an installed snapshot comes from the leader, over the
// network): it must never panic, and what it accepts must persist and read
// back as the same state.
//
//	go test ./fuzz -run=^$ -fuzz=FuzzRaftSnapshot -fuzztime=2m
func FuzzRaftSnapshot(f *testing.F) {
	var puts, pauses, policies []jobs.Record
	for _, r := range raftRecords() {
		switch r.Kind {
		case jobs.RecPut:
			puts = append(puts, r)
		case jobs.RecPause:
			pauses = append(pauses, r)
		case jobs.RecPolicy:
			if r.Policy != nil {
				policies = append(policies, r)
			}
		}
	}
	f.Add(raft.EncodeSnapshot(raft.Snapshot{MaxID: 1 << 41, Jobs: puts, Pauses: pauses,
		Announced: map[string]raft.Announcement{"n1": {Term: 2, Addr: "h:1"}}}))
	f.Add(raft.EncodeSnapshot(raft.Snapshot{MaxID: 1 << 41, Jobs: puts, Policies: policies}))
	f.Add(raft.EncodeSnapshot(raft.Snapshot{}))
	f.Add([]byte("stalkd-snap-1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := raft.DecodeSnapshot(data)
		if err != nil {
			return
		}
		for _, r := range s.Jobs {
			require.Equal(t, jobs.RecPut, r.Kind)
			require.LessOrEqual(t, r.ID, s.MaxID, "the highest id covers every job")
		}
		for _, p := range s.Pauses {
			require.Equal(t, jobs.RecPause, p.Kind)
		}
		again, err := raft.DecodeSnapshot(raft.EncodeSnapshot(s))
		require.NoError(t, err)
		require.Equal(t, s.MaxID, again.MaxID)
		require.Equal(t, s.Jobs, again.Jobs)
		require.Equal(t, s.Announced, again.Announced)
		require.Equal(t, s.Policies, again.Policies)
		// Restoring drops a pause that had ended before another began, and
		// which one that is depends on the order the pauses are read in (a
		// node writes them in map order): only such pauses may go.
		require.Subset(t, s.Pauses, again.Pauses)
		for _, p := range s.Pauses {
			if slices.ContainsFunc(again.Pauses, func(q jobs.Record) bool { return q.Tube == p.Tube }) {
				continue
			}
			require.True(t, slices.ContainsFunc(s.Pauses, func(q jobs.Record) bool {
				return p.Deadline < q.Deadline-int64(q.Delay)
			}), "pause of %q dropped though it was still on when every other began", p.Tube)
		}
	})
}
