package fuzz

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal"
)

// FuzzWALRecord feeds arbitrary bytes to wal.DecodeRecord: it must never
// panic, and whatever it accepts must be a valid job record that encodes
// and decodes back to itself.
//
//	go test ./fuzz -run=^$ -fuzz=FuzzWALRecord -fuzztime=2m
func FuzzWALRecord(f *testing.F) {
	for _, r := range []jobs.Record{
		{Kind: jobs.RecPut, ID: 1, Tube: "default", State: jobs.Ready, Pri: 1024, TTR: time.Second, Created: 1, Body: []byte("hi")},
		{Kind: jobs.RecPut, ID: 1 << 40, Tube: "t", State: jobs.Delayed, Delay: time.Hour, Deadline: 1 << 62, Body: []byte{}},
		{Kind: jobs.RecUpdate, ID: 9, State: jobs.Buried, Pri: 7, Buries: 3, Kicks: 1},
		{Kind: jobs.RecDelete, ID: 12345},
		{Kind: jobs.RecClear, IDs: []uint64{3, 4, 9, 1 << 50, 2}},
		{Kind: jobs.RecPolicy, Tube: "emails", Policy: &jobs.PolicyRecord{Policy: jobs.Policy{MaxReserves: 3, DeadLetter: "dead", MaxReady: 9,
			ReserveRate: 1.5, Schedule: []jobs.Schedule{{Cron: "@every 1m", Body: "x", Priority: 1, TTR: 2}}},
			Fired: []int64{-1}}},
		{Kind: jobs.RecPolicy, Tube: "gone"},
		{Kind: jobs.RecPolicy, Tube: "capped", Policy: &jobs.PolicyRecord{Policy: jobs.Policy{MaxReady: 2, Overflow: jobs.OverflowBury}}},
		{Kind: jobs.RecPolicySet, Policy: &jobs.PolicyRecord{Tubes: []jobs.TubePolicyRecord{
			{Tube: "a", PolicyRecord: jobs.PolicyRecord{Policy: jobs.Policy{MaxReady: 1, Overflow: jobs.OverflowDeadLetter, DeadLetter: "b"}}},
			{Tube: "b", PolicyRecord: jobs.PolicyRecord{Policy: jobs.Policy{Schedule: []jobs.Schedule{{Cron: "@every 1m"}}}, Fired: []int64{7}}}}}},
		{Kind: jobs.RecPut, ID: 5, Tube: "emails", State: jobs.Ready, TTR: time.Second, Body: []byte("x"),
			Sched: 2, SchedAt: 1_700_000_300_000_000_000},
		{Kind: jobs.RecPut, ID: 6, Tube: "emails-dead", State: jobs.Ready, TTR: time.Second, Releases: 3, Body: []byte("y"),
			Dead: &jobs.DeadLetter{Origin: "emails", Reason: jobs.DeadReleased, At: 1_700_000_400_000_000_000}},
		{Kind: jobs.RecPut, ID: 7, Tube: "d", State: jobs.Buried, TTR: time.Second, Body: []byte{},
			Sched: 3, SchedAt: -1, Dead: &jobs.DeadLetter{Origin: "o", Reason: jobs.DeadOverflow, At: -2}},
	} {
		f.Add(wal.AppendRecord(nil, &r))
	}
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := wal.DecodeRecord(data)
		if err != nil {
			return
		}
		require.Contains(t, []jobs.RecordKind{jobs.RecPut, jobs.RecUpdate, jobs.RecDelete, jobs.RecClear, jobs.RecPolicy,
			jobs.RecPolicySet}, rec.Kind)
		switch {
		case rec.Kind == jobs.RecPolicySet:
			require.Zero(t, rec.ID, "a policy set carries no job")
			for _, tp := range rec.Policy.Tubes {
				require.NoError(t, tp.Validate())
				require.NotEqual(t, tp.Tube, tp.DeadLetter)
			}
		case rec.Kind == jobs.RecPolicy:
			require.Zero(t, rec.ID, "a policy carries no job")
			require.NotEmpty(t, rec.Tube)
			if rec.Policy != nil {
				require.NoError(t, rec.Policy.Validate())
			}
		case rec.Kind == jobs.RecClear:
			require.Zero(t, rec.ID, "a clear carries only IDs")
			require.NotContains(t, rec.IDs, uint64(0))
		default:
			require.NotZero(t, rec.ID)
		}
		if rec.Kind == jobs.RecPut {
			require.NotEmpty(t, rec.Tube)
			require.NotNil(t, rec.Body)
			require.Equal(t, len(rec.Body), cap(rec.Body), "the data alone, capped: appending cannot reach the CRLF on disk")
		}
		again, err := wal.DecodeRecord(wal.AppendRecord(nil, &rec))
		require.NoError(t, err)
		require.Equal(t, rec, again)
	})
}

// FuzzWALReplay builds a log from a script of records (ops, 3 bytes each:
// kind, id, parameter), damages it (damage: pairs of a position and a bit
// mask, then optionally a cut), and opens and replays it into a real queue,
// with and without salvage. Nothing may panic, and every job the queue ends
// up with must be one the script put, with one of the bodies it put; with
// no damage, exactly the script's live jobs come back.
//
//	go test ./fuzz -run=^$ -fuzz=FuzzWALReplay -fuzztime=2m
func FuzzWALReplay(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 2, 1, 1, 1, 4, 2, 2, 0}, []byte{})
	f.Add([]byte{0, 1, 0, 0, 2, 0, 0, 3, 0, 3, 9, 9, 1, 1, 2, 2, 1, 0}, []byte{7, 0, 0x10})
	f.Add([]byte{0, 5, 5, 0, 6, 6, 2, 5, 0, 0, 7, 200}, []byte{40, 0, 0x80, 1})
	f.Add([]byte{0, 1, 1, 1, 1, 4, 1, 1, 3, 3, 0, 1}, []byte{2})
	f.Fuzz(func(t *testing.T, ops, damage []byte) {
		log, bodies, live := script(ops)
		damaged := corrupt(log, damage)
		for _, salvage := range []bool{false, true} {
			got := replay(t, damaged, salvage)
			for id, body := range got {
				require.Contains(t, bodies[id], body, "job %d was never put with this body", id)
			}
			if len(damage) == 0 {
				require.Equal(t, live, got, "an undamaged log brings back exactly the live jobs")
			}
		}
	})
}

// script encodes ops as a tidwall/wal segment: uvarint length + record.
func script(ops []byte) (log []byte, bodies map[uint64][]string, live map[uint64]string) {
	bodies, live = map[uint64][]string{}, map[uint64]string{}
	for i := 0; i+2 < len(ops); i += 3 {
		id, p := uint64(ops[i+1]%16+1), ops[i+2]
		var rec jobs.Record
		switch ops[i] % 4 {
		case 0:
			body := fmt.Sprintf("job %d.%d", id, p)
			rec = jobs.Record{Kind: jobs.RecPut, ID: id, Tube: fmt.Sprintf("t%d", p%3), State: jobs.State(p%4 + 1),
				Pri: uint32(p), TTR: time.Second, Created: int64(p), Body: []byte(body)}
			bodies[id] = append(bodies[id], body)
			live[id] = body
		case 1:
			rec = jobs.Record{Kind: jobs.RecUpdate, ID: id, State: jobs.State(p%4 + 1), Pri: uint32(p), TTR: time.Second}
		case 2:
			rec = jobs.Record{Kind: jobs.RecDelete, ID: id}
			delete(live, id)
		case 3:
			log = appendEntry(log, metaEntry(uint64(p), 1, uint64(p)))
			continue
		}
		log = appendEntry(log, wal.AppendRecord(nil, &rec))
	}
	return log, bodies, live
}

func appendEntry(log, ent []byte) []byte {
	log = binary.AppendUvarint(log, uint64(len(ent)))
	return append(log, ent...)
}

// metaEntry encodes the log's bookkeeping record (wal/record.go): durable
// says every entry up to that index had been fsynced, which turns damage
// before it from a torn tail into corruption.
func metaEntry(durable, logStart, maxID uint64) []byte {
	b := []byte{0, 0, 0, 0, 0x10}
	b = binary.AppendUvarint(b, durable)
	b = binary.AppendUvarint(b, logStart)
	b = binary.AppendUvarint(b, maxID)
	binary.LittleEndian.PutUint32(b, crc32.Checksum(b[4:], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// corrupt flips bits at the positions damage names, then cuts the log if
// damage has an odd length.
func corrupt(log, damage []byte) []byte {
	out := append([]byte(nil), log...)
	if len(out) == 0 {
		return out
	}
	for i := 0; i+2 < len(damage); i += 3 {
		pos := int(binary.LittleEndian.Uint16(damage[i:])) % len(out)
		out[pos] ^= damage[i+2]
	}
	if len(damage)%3 != 0 {
		out = out[:int(damage[len(damage)-1])*len(out)/255]
	}
	return out
}

// replay writes seg as the only segment of a fresh log directory, opens it
// and replays it into a queue; it returns the queue's jobs (id -> body), or
// nil if Open refused the log.
func replay(t *testing.T, seg []byte, salvage bool) map[uint64]string {
	dir := tempDir(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "00000000000000000001"), seg, 0o640))
	l, err := wal.Open(dir, wal.Options{Salvage: salvage, SegmentSize: 1 << 16})
	if err != nil {
		require.True(t, errors.Is(err, wal.ErrCorrupt), "unexpected error %v", err)
		require.False(t, salvage, "salvage starts whatever the damage")
		return nil
	}
	defer l.Close()
	q := jobs.New(jobs.Config{Journal: l, Clock: jobs.NewManualClock(0)})
	require.NoError(t, l.Replay(q))
	got := map[uint64]string{}
	var top uint64
	for id := uint64(1); id <= 17; id++ {
		if d, err := q.Peek(id); err == nil {
			got[id], top = string(d.Body()), id
		}
	}
	st := q.Stats()
	require.Equal(t, int64(len(got)), st.Ready+st.Delayed+st.Buried+st.Reserved, "no job outside the script's ids")
	require.Greater(t, q.NextID(), top, "ids continue above the restored ones")
	return got
}

// tempDir is memory-backed when possible: each input opens a log.
func tempDir(t *testing.T) string {
	if dir, err := os.MkdirTemp("/dev/shm", "stalkd-fuzz-"); err == nil {
		t.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	return t.TempDir()
}
