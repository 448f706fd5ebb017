package raft

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"testing"
	"time"

	hraft "github.com/hashicorp/raft"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

func sampleRecords() []jobs.Record {
	return []jobs.Record{
		{Kind: jobs.RecPut, ID: 7, Tube: "emails", State: jobs.Delayed, Pri: 1024, Delay: 2 * time.Second,
			TTR: time.Minute, Created: 1_700_000_000_000_000_000, Deadline: 1_700_000_002_000_000_000, Body: []byte("hi")},
		{Kind: jobs.RecUpdate, ID: 7, State: jobs.Reserved, Pri: 1024, TTR: time.Minute,
			Created: 1_700_000_000_000_000_000, Deadline: 1_700_000_062_000_000_000, Reserves: 1, Kicks: 1},
		{Kind: jobs.RecUpdate, ID: 7, State: jobs.Buried, Pri: 5, TTR: time.Minute, Reserves: 1, Buries: 1},
		{Kind: jobs.RecDelete, ID: 7},
		{Kind: jobs.RecClear, IDs: []uint64{3, 1, 300}},
		{Kind: jobs.RecPause, Tube: "emails", Delay: time.Minute, Deadline: 1_700_000_060_000_000_000},
	}
}

// TestEntryGolden pins the entry format: a change here breaks every
// cluster running an older binary.
func TestEntryGolden(t *testing.T) {
	recs := sampleRecords()[:2]
	got := hex.EncodeToString(encodeEntry(recs, 0))
	const want = "0102" +
		"0107" + "03" + "8008" + "80d0acf30e" + "80e0ba84bf03" + "8080d0e2c6bfce972f" + "80d0fcd5d5bfce972f" + "0000000000" +
		"06656d61696c73" + "0468690d0a" +
		"0207" + "02" + "8008" + "00" + "80e0ba84bf03" + "8080d0e2c6bfce972f" + "80b0b7da94c3ce972f" + "0100000001"
	assert.Equal(t, want, got)
}

// TestEntryGoldenEveryKind pins one entry of each kind of record (and the
// leader's announcement entry), so no kind's bytes can change unnoticed.
func TestEntryGoldenEveryKind(t *testing.T) {
	recs := sampleRecords()
	want := []string{
		"0101" + "0107" + "03" + "8008" + "80d0acf30e" + "80e0ba84bf03" + "8080d0e2c6bfce972f" + "80d0fcd5d5bfce972f" + "0000000000" + "06656d61696c73" + "0468690d0a",
		"0101" + "0207" + "02" + "8008" + "00" + "80e0ba84bf03" + "8080d0e2c6bfce972f" + "80b0b7da94c3ce972f" + "0100000001",
		"0101" + "0207" + "04" + "05" + "00" + "80e0ba84bf03" + "00" + "00" + "0100000100",
		"0101" + "0307",
		"0101" + "04" + "03" + "03" + "01" + "ac02",
		"0101" + "05" + "06656d61696c73" + "80e0ba84bf03" + "80e08ae785c3ce972f",
		// tube policies: a policy, and a scheduled put (kinds 6 and 7)
		"0101" + "06" + "06656d61696c73" + "01" + "03" + "0464656164" + "0a" + "000000000000e03f" + "01" +
			"0940657665727920316d" + "0178" + "02" + "05" + "8080d0e2c6bfce972f",
		"0101" + "07" + "08" + "01" + "02" + "00" + "80c8afa025" + "82e08ae785c3ce972f" + "00" + "0000000000" +
			"06656d61696c73" + "03780d0a" + "01" + "80e08ae785c3ce972f",
		// issue 28: a policy with an overflow mode, and a policy set (kinds 10 and 11)
		"0101" + "0a" + "0174" + "01" + "00" + "00" + "01" + "0000000000000000" + "00" + "01" + "01" + "01" + "02",
		"0101" + "0b" + "02" +
			"0161" + "00" + "0162" + "02" + "0000000000000000" + "00" + "01" + "01" + "01" + "03" +
			"06656d61696c73" + "03" + "00" + "00" + "0000000000000000" + "01" +
			"0940657665727920316d" + "0178" + "02" + "05" + "8080d0e2c6bfce972f" + "00",
	}
	recs = append(recs, policyRecords()[:2]...)
	recs = append(recs, policySetRecords()...)
	require.Len(t, want, len(recs))
	kinds := map[jobs.RecordKind]bool{}
	for i := range recs {
		data := encodeEntry(recs[i:i+1], 0)
		assert.Equal(t, want[i], hex.EncodeToString(data), "%v", recs[i].Kind)
		var got []jobs.Record
		require.NoError(t, decodeEntry(data, nil, func(r *jobs.Record) error { got = append(got, *r); return nil }))
		assert.Equal(t, recs[i:i+1], got)
		kinds[recs[i].Kind] = true
	}
	assert.Equal(t, map[jobs.RecordKind]bool{jobs.RecPut: true, jobs.RecUpdate: true, jobs.RecDelete: true,
		jobs.RecClear: true, jobs.RecPause: true, jobs.RecPolicy: true, jobs.RecPolicySet: true}, kinds,
		"every kind of record the log carries")
	for k := range 256 {
		kind := jobs.RecordKind(k)
		assert.Equal(t, kinds[kind], encodable(kind), "kind %v: encodable, and pinned here, or neither", kind)
		if !encodable(kind) {
			assert.Panics(t, func() { encodeEntry([]jobs.Record{{Kind: kind, ID: 1}}, 0) }, "kind %v", kind)
		}
	}

	ann := encodeAnnounce(2, "n1", "10.0.0.1:11300")
	assert.Equal(t, "81"+"02"+"026e31"+"0e31302e302e302e313a3131333030", hex.EncodeToString(ann))
	id, a, err := decodeAnnounce(ann)
	require.NoError(t, err)
	assert.Equal(t, "n1", id)
	assert.Equal(t, announce{term: 2, addr: "10.0.0.1:11300"}, a)
}

// TestSnapshotGolden pins the snapshot format with bytes an earlier build
// wrote (when jobs.Record.Body still carried the job's CRLF): today's
// snapshot of the same jobs is byte for byte the same, and reads back as
// them, bodies without their CRLF.
func TestSnapshotGolden(t *testing.T) {
	const old = "7374616c6b642d736e61702d310a0c02" +
		"2d010301050080e0ba84bf038080d0e2c6bfce972f0000000000000764656661756c74" + "0a6a6f6220626f64790d0a" +
		"16010904000080a8d6b9070e00000000010001740" + "20d0a" +
		"01098102026e3103683a3101130501748080c58bc6d1018090edcbe1bfce972f"
	recs := []*jobs.Record{
		{Kind: jobs.RecPut, ID: 3, Tube: "default", State: jobs.Ready, Pri: 5, TTR: time.Minute,
			Created: 1_700_000_000_000_000_000, Body: []byte("job body")},
		{Kind: jobs.RecPut, ID: 9, Tube: "t", State: jobs.Buried, TTR: time.Second, Created: 7, Buries: 1, Body: []byte{}},
	}
	pause := jobs.Record{Kind: jobs.RecPause, Tube: "t", Delay: time.Hour, Deadline: 1_700_000_003_600_000_000}
	s := &snapshot{maxID: 12, recs: recs, announced: map[string]announce{"n1": {term: 2, addr: "h:1"}},
		pauses: []jobs.Record{pause}}
	sink := &memSink{}
	require.NoError(t, s.Persist(sink))
	assert.Equal(t, old, hex.EncodeToString(sink.buf.Bytes()))

	b, err := hex.DecodeString(old)
	require.NoError(t, err)
	f := newFSM(zerolog.Nop())
	require.NoError(t, f.Restore(io.NopCloser(bytes.NewReader(b))))
	assert.Equal(t, uint64(12), f.st.maxID)
	require.Len(t, f.st.jobs, 2)
	assert.Equal(t, *recs[0], *f.st.jobs[3])
	assert.Equal(t, *recs[1], *f.st.jobs[9])
	assert.Equal(t, pause, f.st.pauses["t"])
}

func TestEntryRoundTrip(t *testing.T) {
	recs := sampleRecords()
	var got []jobs.Record
	require.NoError(t, decodeEntry(encodeEntry(recs, 0), nil, func(r *jobs.Record) error {
		got = append(got, *r)
		return nil
	}))
	assert.Equal(t, recs, got)
}

// TestEntryMalformed: every truncation and a few corruptions are refused,
// never a panic.
func TestEntryMalformed(t *testing.T) {
	b := encodeEntry(sampleRecords(), 0)
	for i := 0; i < len(b); i++ {
		err := decodeEntry(b[:i], nil, func(*jobs.Record) error { return nil })
		assert.ErrorIs(t, err, ErrMalformed, "truncated at %d", i)
	}
	for _, bad := range [][]byte{
		{2, 0},                    // unknown version
		{1, 1, 9, 1},              // unknown kind
		{1, 1, 3, 0},              // id 0
		{1, 1, 4, 5, 1},           // a clear of more ids than bytes
		{1, 1, 4, 1, 0},           // a clear of id 0
		{1, 1, 5, 0, 2, 2},        // a pause of no tube
		{1, 1, 5, 1, 0x61, 0, 2},  // a pause of length 0
		append(bytes.Clone(b), 0), // trailing byte
	} {
		assert.ErrorIs(t, decodeEntry(bad, nil, func(*jobs.Record) error { return nil }), ErrMalformed, "%x", bad)
	}
	// An unknown state byte.
	one := encodeEntry(sampleRecords()[1:2], 0)
	one[4] = 9
	assert.ErrorIs(t, decodeEntry(one, nil, func(*jobs.Record) error { return nil }), ErrMalformed)
}

// TestStateAndSnapshot applies records, snapshots the state, restores the
// snapshot into a fresh FSM and checks both agree, then builds a queue.
func TestStateAndSnapshot(t *testing.T) {
	f := newFSM(zerolog.Nop())
	var recs []jobs.Record
	for id := uint64(1); id <= 5; id++ {
		recs = append(recs, jobs.Record{Kind: jobs.RecPut, ID: id, Tube: "t", State: jobs.Ready, Pri: uint32(id),
			TTR: time.Second, Created: 1, Body: []byte("b")})
	}
	recs = append(recs,
		jobs.Record{Kind: jobs.RecDelete, ID: 2},
		jobs.Record{Kind: jobs.RecUpdate, ID: 3, State: jobs.Buried, Pri: 9, TTR: time.Second, Created: 1, Buries: 1},
		jobs.Record{Kind: jobs.RecUpdate, ID: 4, State: jobs.Reserved, Pri: 4, TTR: time.Second, Created: 1,
			Deadline: time.Now().Add(time.Hour).UnixNano(), Reserves: 1},
		jobs.Record{Kind: jobs.RecDelete, ID: 99}, // unknown: counted, ignored
		jobs.Record{Kind: jobs.RecPut, ID: 6, Tube: "u", State: jobs.Ready, Body: []byte("c")},
		jobs.Record{Kind: jobs.RecPut, ID: 7, Tube: "u", State: jobs.Ready, Body: []byte("c")},
		jobs.Record{Kind: jobs.RecClear, IDs: []uint64{6, 7}},
		jobs.Record{Kind: jobs.RecPause, Tube: "t", Delay: time.Hour, Deadline: time.Now().Add(time.Hour).UnixNano()},
	)
	require.Nil(t, f.Apply(&hraft.Log{Index: 1, Type: hraft.LogCommand, Data: encodeEntry(recs, 0)}))
	assert.Equal(t, uint64(1), f.st.orphans)
	assert.Equal(t, uint64(99), f.st.maxID)
	require.Len(t, f.st.jobs, 4)
	assert.Equal(t, jobs.Buried, f.st.jobs[3].State)
	assert.Equal(t, "t", f.st.jobs[3].Tube, "an update keeps tube and body")
	assert.Equal(t, "b", string(f.st.jobs[3].Body))

	require.Nil(t, f.Apply(&hraft.Log{Index: 2, Type: hraft.LogCommand, Data: encodeAnnounce(3, "n2", "h:1")}))
	assert.Equal(t, announce{term: 3, addr: "h:1"}, f.st.announced["n2"])

	// A malformed entry is reported and changes nothing.
	err, _ := f.Apply(&hraft.Log{Index: 2, Type: hraft.LogCommand, Data: []byte{1, 1, 9}}).(error)
	assert.ErrorIs(t, err, ErrMalformed)
	assert.Len(t, f.st.jobs, 4)

	snap, err := f.Snapshot()
	require.NoError(t, err)
	sink := &memSink{}
	require.NoError(t, snap.Persist(sink))
	g := newFSM(zerolog.Nop())
	require.NoError(t, g.Restore(sink.reader()))
	assert.Equal(t, f.st.jobs, g.st.jobs)
	assert.Equal(t, f.st.maxID, g.st.maxID)
	assert.Equal(t, f.st.announced, g.st.announced)
	assert.Equal(t, f.st.pauses, g.st.pauses)
	require.Len(t, g.st.pauses, 1)

	q := jobs.New(jobs.Config{Replicated: true})
	require.NoError(t, g.st.restoreInto(q))
	st := q.Stats()
	assert.Equal(t, int64(2), st.Ready)
	assert.Equal(t, int64(1), st.Buried)
	assert.Equal(t, int64(1), st.Reserved, "the reservation is restored as an orphan")
	assert.Equal(t, uint64(100), q.NextID(), "ids continue above every id logged")
	ts, err := q.StatsTube([]byte("t"))
	require.NoError(t, err)
	assert.Equal(t, time.Hour, ts.Pause, "the pause is re-armed")

	// A damaged snapshot is refused.
	b := sink.buf.Bytes()
	bad := &memSink{}
	bad.buf.Write(b[:len(b)-1])
	assert.Error(t, newFSM(zerolog.Nop()).Restore(bad.reader()))
}

type memSink struct {
	buf      bytes.Buffer
	canceled bool
}

func (s *memSink) Write(p []byte) (int, error) { return s.buf.Write(p) }
func (s *memSink) Close() error                { return nil }
func (s *memSink) ID() string                  { return "mem" }
func (s *memSink) Cancel() error               { s.canceled = true; return errors.New("canceled") }
func (s *memSink) reader() *nopCloser          { return &nopCloser{bytes.NewReader(s.buf.Bytes())} }

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }
