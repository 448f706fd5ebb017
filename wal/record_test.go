package wal

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

func sampleRecords() []jobs.Record {
	return []jobs.Record{
		{Kind: jobs.RecPut, ID: 1, Tube: "default", State: jobs.Ready, Pri: 1024, TTR: time.Second,
			Created: 1_700_000_000_000_000_000, Body: []byte("hello")},
		{Kind: jobs.RecPut, ID: 1<<64 - 1, Tube: "t-" + string(make([]byte, 198)), State: jobs.Delayed, Pri: 1<<32 - 1,
			Delay: 90 * time.Second, TTR: 1<<63 - 1, Created: -5, Deadline: 1<<63 - 1,
			Reserves: 1<<32 - 1, Timeouts: 2, Releases: 3, Buries: 4, Kicks: 5, Body: []byte{}},
		{Kind: jobs.RecUpdate, ID: 7, State: jobs.Buried, Pri: 3, Delay: 0, TTR: 2 * time.Second, Created: 9, Buries: 1},
		{Kind: jobs.RecUpdate, ID: 8, State: jobs.Delayed, Pri: 0, Delay: time.Hour, TTR: time.Second, Deadline: 42},
		{Kind: jobs.RecDelete, ID: 300},
		{Kind: jobs.RecClear, IDs: []uint64{1, 2, 3, 1000, 999, 1<<64 - 1, 5}},
		{Kind: jobs.RecClear, IDs: []uint64{42}},
		{Kind: jobs.RecClear},
	}
}

func TestRecordRoundTrip(t *testing.T) {
	for _, rec := range sampleRecords() {
		b := AppendRecord([]byte("prefix"), &rec)
		require.Equal(t, "prefix", string(b[:6]))
		enc := b[6:]
		assert.Equal(t, recordSize(&rec), len(enc), "recordSize of %+v", rec)
		got, err := DecodeRecord(enc)
		require.NoError(t, err)
		assert.Equal(t, rec, got)
	}
}

func TestMetaRoundTrip(t *testing.T) {
	m := meta{durable: 12345, logStart: 99, maxID: 1 << 60}
	b := appendMeta(nil, m)
	var e decoded
	require.NoError(t, e.decode(b))
	assert.True(t, e.isMeta)
	assert.Equal(t, m, e.meta)
	_, err := DecodeRecord(b)
	assert.ErrorIs(t, err, ErrMetaRecord)
}

func TestDecodeRejectsEveryDamage(t *testing.T) {
	for _, rec := range sampleRecords() {
		enc := AppendRecord(nil, &rec)
		for i := range enc {
			for bit := range 8 {
				b := append([]byte(nil), enc...)
				b[i] ^= 1 << bit
				_, err := DecodeRecord(b)
				assert.Error(t, err, "flip byte %d bit %d of %+v", i, bit, rec)
			}
		}
		for n := range len(enc) {
			_, err := DecodeRecord(enc[:n])
			assert.Error(t, err, "prefix of %d bytes", n)
		}
	}
}

func TestDecodeRejectsInvalidJobs(t *testing.T) {
	bad := []jobs.Record{
		{Kind: jobs.RecDelete, ID: 0},
		{Kind: jobs.RecPut, ID: 1, Tube: "", State: jobs.Ready, Body: []byte("x")},
		{Kind: jobs.RecPut, ID: 1, Tube: string(make([]byte, 201)), State: jobs.Ready, Body: []byte("x")},
		{Kind: jobs.RecUpdate, ID: 1, State: 0},
		{Kind: jobs.RecUpdate, ID: 1, State: 9},
		{Kind: jobs.RecUpdate, ID: 1, State: jobs.Ready, Delay: -1},
		{Kind: jobs.RecClear, IDs: []uint64{5, 0, 6}},
		{Kind: 9, ID: 1},
	}
	for _, rec := range bad {
		_, err := DecodeRecord(AppendRecord(nil, &rec))
		assert.Error(t, err, "%+v", rec)
	}
	// A body field that does not end in the CRLF the encoder adds (written
	// by hand: the encoder cannot produce one).
	for _, body := range []string{"x", ""} {
		rec := jobs.Record{Kind: jobs.RecPut, ID: 1, Tube: "t", State: jobs.Ready, Body: []byte(body)}
		for _, end := range []string{"\n\n", "\r\r", "x\n", "\rx"} {
			b := AppendRecord(nil, &rec)
			copy(b[len(b)-2:], end)
			_, err := DecodeRecord(seal(b, 0))
			assert.ErrorIs(t, err, errBadJob, "body %q ending %q", body, end)
		}
	}
}

// A put's body field on disk is the data followed by "\r\n" (the format of
// every log written so far); DecodeRecord hands back the data alone, as a
// capped view.
func TestRecordBodyFraming(t *testing.T) {
	rec := jobs.Record{Kind: jobs.RecPut, ID: 1, Tube: "t", State: jobs.Ready, Body: []byte("data")}
	b := AppendRecord(nil, &rec)
	assert.Equal(t, "\x06data\r\n", string(b[len(b)-7:]), "length 6, data, CRLF")
	got, err := DecodeRecord(b)
	require.NoError(t, err)
	assert.Equal(t, "data", string(got.Body))
	assert.Equal(t, len(got.Body), cap(got.Body))
}

func TestRecordSizeMatchesEncoding(t *testing.T) {
	for _, v := range []int64{0, 1, 63, 64, -64, -65, 1 << 20, -(1 << 40), 1<<63 - 1, -1 << 63} {
		rec := jobs.Record{Kind: jobs.RecUpdate, ID: uint64(v), State: jobs.Ready, Created: v, Deadline: -v, Delay: time.Duration(v)}
		assert.Equal(t, len(AppendRecord(nil, &rec)), recordSize(&rec), "value %d", v)
	}
	assert.Equal(t, 1+127, entrySize(127))
	assert.Equal(t, 2+128, entrySize(128))
}

func TestClearRecordIsCompact(t *testing.T) {
	ids := make([]uint64, 10_000)
	for i := range ids {
		ids[i] = 1_000_000 + uint64(i)
	}
	rec := jobs.Record{Kind: jobs.RecClear, IDs: ids}
	enc := AppendRecord(nil, &rec)
	assert.Less(t, len(enc), 10_100, "a run of ids costs about a byte each")
	got, err := DecodeRecord(enc)
	require.NoError(t, err)
	assert.Equal(t, ids, got.IDs)
}

func TestClearRecordHostileCount(t *testing.T) {
	// A count far beyond the bytes present must fail, not allocate.
	b := []byte{0, 0, 0, 0, kindClear}
	b = binary.AppendUvarint(b, 1<<60)
	b = append(b, 1, 2, 3)
	_, err := DecodeRecord(seal(b, 0))
	assert.Error(t, err)
}

// TestRecordAroundTheBody: the writer's gathered encoding (the record with
// its body left out, to be written from the job's own memory) is
// AppendRecord's byte for byte once the body is put back, checksum
// included, for every kind (scheduled puts, whose fields follow the body,
// and dead-lettered puts (kind 7), too).
func TestRecordAroundTheBody(t *testing.T) {
	recs := append(sampleRecords(),
		jobs.Record{Kind: jobs.RecPut, ID: 9, Tube: "s", State: jobs.Ready, TTR: time.Second, Body: []byte("scheduled"),
			Sched: 3, SchedAt: 1_700_000_000_000_000_000},
		jobs.Record{Kind: jobs.RecPut, ID: 10, Tube: "big", State: jobs.Ready, Body: make([]byte, 70_000)},
		jobs.Record{Kind: jobs.RecPut, ID: 11, Tube: "dead", State: jobs.Buried, Body: []byte("dead-lettered"),
			Dead: &jobs.DeadLetter{Origin: "emails", Reason: jobs.DeadReleased, At: 1_700_000_100_000_000_000}},
		jobs.Record{Kind: jobs.RecPut, ID: 12, Tube: "dead", State: jobs.Buried, Body: []byte("scheduled, then dead"),
			Sched: 2, SchedAt: 7, Dead: &jobs.DeadLetter{Origin: "r", Reason: jobs.DeadOverflow, At: -1}})
	for _, rec := range recs {
		want := AppendRecord([]byte("prefix"), &rec)
		out, at := appendRecordAround([]byte("prefix"), &rec)
		var body []byte
		if rec.Kind == jobs.RecPut {
			body = rec.Body
		} else {
			assert.Equal(t, len(out), at, "only a put leaves its body out")
		}
		got := append(append(append([]byte(nil), out[:at]...), body...), out[at:]...)
		require.Equal(t, want, got, "%+v", rec.Kind)
	}
}
