package wal

import (
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal/internal/fields"
)

// The golden fixtures pin the on-disk format: every file under testdata/
// was written by an earlier build, and every later build must read it the
// same way. Regenerate them only for a deliberate, versioned format change:
//
//	go test ./wal -run Golden -update
var update = flag.Bool("update", false, "rewrite the golden files under testdata/ (a format change)")

// goldenRecords are the fixtures of testdata/records: one per record kind
// and job state, with extreme field values.
var goldenRecords = []struct {
	name string
	rec  jobs.Record
}{
	{"put-ready", jobs.Record{Kind: jobs.RecPut, ID: 1, Tube: "default", State: jobs.Ready, Pri: 1024, TTR: 120 * time.Second,
		Created: 1_700_000_000_123_456_789, Body: []byte("hello")}},
	{"put-delayed", jobs.Record{Kind: jobs.RecPut, ID: 1<<64 - 1, Tube: "emails-2", State: jobs.Delayed, Pri: 1<<32 - 1,
		Delay: 90 * time.Second, TTR: 1<<63 - 1, Created: -5, Deadline: 1<<63 - 1,
		Reserves: 1<<32 - 1, Timeouts: 2, Releases: 3, Buries: 4, Kicks: 5, Body: []byte("\x00\xff")}},
	{"put-buried", jobs.Record{Kind: jobs.RecPut, ID: 300, Tube: "t", State: jobs.Buried, TTR: time.Second,
		Created: 42, Buries: 1, Body: []byte{}}},
	{"update-ready", jobs.Record{Kind: jobs.RecUpdate, ID: 7, State: jobs.Ready, Pri: 3, TTR: 2 * time.Second, Created: 9, Releases: 1}},
	{"update-reserved", jobs.Record{Kind: jobs.RecUpdate, ID: 8, State: jobs.Reserved, Pri: 0, TTR: time.Second, Reserves: 1}},
	{"update-delayed", jobs.Record{Kind: jobs.RecUpdate, ID: 9, State: jobs.Delayed, Delay: time.Hour, TTR: time.Second, Deadline: 3_600_000_000_000}},
	{"update-buried", jobs.Record{Kind: jobs.RecUpdate, ID: 1 << 40, State: jobs.Buried, Pri: 1, TTR: time.Second, Buries: 7, Kicks: 6}},
	{"delete", jobs.Record{Kind: jobs.RecDelete, ID: 123_456}},
	{"clear", jobs.Record{Kind: jobs.RecClear, IDs: []uint64{5, 6, 7, 1000, 4, 1<<64 - 1}}},
	{"clear-empty", jobs.Record{Kind: jobs.RecClear}},
	{"policy", jobs.Record{Kind: jobs.RecPolicy, Tube: "emails", Policy: &jobs.PolicyRecord{Policy: jobs.Policy{
		MaxReserves: 5, DeadLetter: "emails-dead", MaxReady: 1<<32 - 1, ReserveRate: 2.5,
		Schedule: []jobs.Schedule{
			{Cron: "*/5 * * * *", Body: "report", Priority: 10, TTR: 60},
			{Cron: "@every 30s", Body: "", Priority: 1<<32 - 1},
		}}, Fired: []int64{1_700_000_000_000_000_000, -1}}}},
	{"policy-plain", jobs.Record{Kind: jobs.RecPolicy, Tube: "t", Policy: &jobs.PolicyRecord{Policy: jobs.Policy{MaxReady: 1}}}},
	// A schedule's time zone rides in its cron string (fields.AppendPolicy).
	{"policy-tz", jobs.Record{Kind: jobs.RecPolicy, Tube: "reports", Policy: &jobs.PolicyRecord{Policy: jobs.Policy{
		Schedule: []jobs.Schedule{
			{Cron: "30 2 * * MON-FRI", TZ: "America/New_York", Body: "report", Priority: 1024, TTR: 60},
			{Cron: "@daily", Body: "sweep"},
		}}, Fired: []int64{1_700_000_000_000_000_000, 5}}}},
	{"policy-removed", jobs.Record{Kind: jobs.RecPolicy, Tube: "emails"}},
	{"put-scheduled", jobs.Record{Kind: jobs.RecPut, ID: 77, Tube: "emails", State: jobs.Ready, Pri: 10,
		TTR: 60 * time.Second, Created: 1_700_000_000_000_000_001, Body: []byte("report"),
		Sched: 1, SchedAt: 1_700_000_000_000_000_000}},
	{"put-dead-released", jobs.Record{Kind: jobs.RecPut, ID: 78, Tube: "emails-dead", State: jobs.Ready, Pri: 5,
		TTR: 60 * time.Second, Created: 1_700_000_000_000_000_002, Releases: 3, Body: []byte("mail 78"),
		Dead: &jobs.DeadLetter{Origin: "emails", Reason: jobs.DeadReleased, At: 1_700_000_100_000_000_000}}},
	{"put-dead-timed-out", jobs.Record{Kind: jobs.RecPut, ID: 1<<64 - 1, Tube: "d", State: jobs.Buried, Pri: 1<<32 - 1,
		TTR: time.Second, Created: -1, Timeouts: 1<<32 - 1, Buries: 1, Body: []byte{},
		Dead: &jobs.DeadLetter{Origin: strings.Repeat("o", jobs.MaxTubeName), Reason: jobs.DeadTimedOut, At: -1}}},
	{"put-dead-overflow-scheduled", jobs.Record{Kind: jobs.RecPut, ID: 79, Tube: "reports-dead", State: jobs.Delayed,
		Delay: time.Minute, TTR: 600 * time.Second, Created: 1_700_000_000_000_000_003, Deadline: 1_700_000_060_000_000_003,
		Body: []byte("nightly-report"), Sched: 2, SchedAt: 1_700_000_000_000_000_000,
		Dead: &jobs.DeadLetter{Origin: "reports", Reason: jobs.DeadOverflow, At: 1_700_000_000_000_000_003}}},
	{"policy-overflow", jobs.Record{Kind: jobs.RecPolicy, Tube: "emails", Policy: &jobs.PolicyRecord{Policy: jobs.Policy{
		MaxReady: 100, Overflow: jobs.OverflowDeadLetter, DeadLetter: "emails-spill"}}}},
	{"policy-set", jobs.Record{Kind: jobs.RecPolicySet, Policy: &jobs.PolicyRecord{Tubes: []jobs.TubePolicyRecord{
		{Tube: "a", PolicyRecord: jobs.PolicyRecord{Policy: jobs.Policy{MaxReady: 1, Overflow: jobs.OverflowBury}}},
		{Tube: "emails", PolicyRecord: jobs.PolicyRecord{Policy: jobs.Policy{MaxReserves: 5, DeadLetter: "emails-dead",
			ReserveRate: 0.5, Schedule: []jobs.Schedule{{Cron: "@every 1m", Body: "x", Priority: 1024, TTR: 60}}},
			Fired: []int64{1_700_000_000_000_000_000}}},
		{Tube: "z", PolicyRecord: jobs.PolicyRecord{Policy: jobs.Policy{MaxReady: 2, Overflow: jobs.OverflowReject}}},
	}}}},
	{"policy-set-empty", jobs.Record{Kind: jobs.RecPolicySet, Policy: &jobs.PolicyRecord{Tubes: []jobs.TubePolicyRecord{}}}},
}

// goldenMeta is the fixture testdata/records/meta.hex.
var goldenMeta = meta{durable: 1 << 33, logStart: 17, maxID: 99_999}

func TestGoldenRecords(t *testing.T) {
	dir := filepath.Join("testdata", "records")
	if *update {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for _, g := range goldenRecords {
			desc := fmt.Sprintf("%+v", g.rec)
			if g.rec.Policy != nil {
				desc += fmt.Sprintf(" *Policy=%+v", *g.rec.Policy)
			}
			if g.rec.Dead != nil {
				desc += fmt.Sprintf(" *Dead=%+v", *g.rec.Dead)
			}
			writeHex(t, filepath.Join(dir, g.name+".hex"), desc, AppendRecord(nil, &g.rec))
		}
		writeHex(t, filepath.Join(dir, "meta.hex"), fmt.Sprintf("%+v", goldenMeta), appendMeta(nil, goldenMeta))
	}
	for _, g := range goldenRecords {
		t.Run(g.name, func(t *testing.T) {
			b := readHex(t, filepath.Join(dir, g.name+".hex"))
			got, err := DecodeRecord(b)
			require.NoError(t, err, "today's reader refuses a fixture")
			assert.Equal(t, g.rec, got, "today's reader reads the fixture differently")
			assert.Equal(t, hex.EncodeToString(b), hex.EncodeToString(AppendRecord(nil, &g.rec)),
				"the encoding changed: give the format new kind numbers instead")
		})
	}
	b := readHex(t, filepath.Join(dir, "meta.hex"))
	var e decoded
	require.NoError(t, e.decode(b))
	assert.True(t, e.isMeta)
	assert.Equal(t, goldenMeta, e.meta)
	assert.Equal(t, b, appendMeta(nil, goldenMeta))
}

// TestGoldenFormatNumbers pins the format's own numbers against jobs'
// values: the mapping must be total over what jobs writes and refuse
// everything else.
func TestGoldenFormatNumbers(t *testing.T) {
	kinds := map[jobs.RecordKind]byte{jobs.RecPut: 1, jobs.RecUpdate: 2, jobs.RecDelete: 3, jobs.RecClear: 4, jobs.RecPolicy: 5,
		jobs.RecPolicySet: 11}
	for k, want := range kinds {
		b, ok := kindByte(k)
		require.True(t, ok)
		assert.Equal(t, want, b, "kind %d", k)
		back, ok := kindOf(b)
		require.True(t, ok)
		assert.Equal(t, k, back)
	}
	states := map[jobs.State]byte{jobs.Ready: 1, jobs.Reserved: 2, jobs.Delayed: 3, jobs.Buried: 4}
	for s, want := range states {
		b, ok := stateByte(s)
		require.True(t, ok)
		assert.Equal(t, want, b, "state %v", s)
		back, ok := stateOf(b)
		require.True(t, ok)
		assert.Equal(t, s, back)
	}
	for b := range 256 {
		if _, ok := kindOf(byte(b)); ok != (b >= 1 && b <= 7 || b == 10 || b == 11) {
			t.Errorf("kind byte %#x: known %v", b, ok)
		}
		if _, ok := stateOf(byte(b)); ok != (b >= 1 && b <= 4) {
			t.Errorf("state byte %#x: known %v", b, ok)
		}
	}
	sched, ok := kindOf(6) // a put that carries its schedule's mark
	assert.True(t, ok)
	assert.Equal(t, jobs.RecPut, sched)
	dead, ok := kindOf(7) // a put that carries its dead-letter mark
	assert.True(t, ok)
	assert.Equal(t, jobs.RecPut, dead)
	for r, want := range map[jobs.DeadReason]byte{jobs.DeadReleased: 1, jobs.DeadTimedOut: 2, jobs.DeadOverflow: 3} {
		b, ok := fields.ReasonCode(r)
		require.True(t, ok)
		assert.Equal(t, want, b, "reason %s", r)
	}
	ext, ok := kindOf(10) // a policy with fields the first layout lacks
	assert.True(t, ok)
	assert.Equal(t, jobs.RecPolicy, ext)
	_, ok = kindByte(99)
	assert.False(t, ok)
	_, ok = stateByte(99)
	assert.False(t, ok)
}

func TestUnknownBytesAreRefusedByName(t *testing.T) {
	rec := goldenRecords[0].rec
	b := AppendRecord(nil, &rec)
	b[crcLen] = 0x7e
	_, err := DecodeRecord(seal(b, 0))
	require.ErrorIs(t, err, errKind)
	assert.Contains(t, err.Error(), "0x7e")

	b = AppendRecord(nil, &rec)
	b[crcLen+2] = 9 // the state byte after kind and a one-byte id
	_, err = DecodeRecord(seal(b, 0))
	require.ErrorIs(t, err, errState)
	assert.Contains(t, err.Error(), "0x9")
}

func TestAppendRefusesWhatTheFormatCannotHold(t *testing.T) {
	h := newHarness(t, Options{})
	h.open()
	_, err := h.l.Append(jobs.Record{Kind: 77, ID: 1})
	assert.ErrorIs(t, err, jobs.ErrJournal)
	_, err = h.l.Append(jobs.Record{Kind: jobs.RecUpdate, ID: 1, State: 0})
	assert.ErrorIs(t, err, jobs.ErrJournal)
	_, _, err = h.q.put("t", 1, 0, "still fine")
	assert.NoError(t, err, "a refused record does not harm the journal")
}

// goldenLog is what testdata/log-v1 must always restore. It names states
// by word, so that it does not depend on jobs' enum values either.
type goldenLog struct {
	Jobs   []goldenJob `json:"jobs"` // by id
	NextID uint64      `json:"next_id"`
}

// goldenJob's Body is as the log holds it, framed: the job data followed by
// "\r\n" (log-v1.json was written when Record.Body carried the CRLF too).
type goldenJob struct {
	ID                                          uint64
	Tube, State, Body                           string
	Pri                                         uint32
	Delay, TTR                                  time.Duration
	Created, Deadline                           int64
	Reserves, Timeouts, Releases, Buries, Kicks uint32
}

func toGolden(r *jobs.Record) goldenJob {
	return goldenJob{ID: r.ID, Tube: r.Tube, State: r.State.String(), Body: string(r.Body) + "\r\n", Pri: r.Pri,
		Delay: r.Delay, TTR: r.TTR, Created: r.Created, Deadline: r.Deadline, Reserves: r.Reserves,
		Timeouts: r.Timeouts, Releases: r.Releases, Buries: r.Buries, Kicks: r.Kicks}
}

// TestGoldenLogDirectory opens a log directory an earlier build wrote (a
// few segments: puts, updates of every kind, deletes, a clear, metas) and
// checks that it restores exactly the jobs recorded beside it.
func TestGoldenLogDirectory(t *testing.T) {
	src := filepath.Join("testdata", "log-v1")
	if *update {
		writeGoldenLog(t, src)
	}
	var want goldenLog
	require.NoError(t, json.Unmarshal(readFile(t, filepath.Join("testdata", "log-v1.json")), &want))
	require.NotEmpty(t, want.Jobs)

	h := newHarness(t, testOptions(t))
	copySegments(t, src, h.dir)
	h.open()
	var got []goldenJob
	for i := range h.q.restored {
		require.Equal(t, jobs.RecPut, h.q.restored[i].Kind)
		got = append(got, toGolden(&h.q.restored[i]))
	}
	sort.Slice(got, func(i, k int) bool { return got[i].ID < got[k].ID })
	assert.Equal(t, want.Jobs, got)
	id, _, err := h.q.put("t", 1, 0, "next")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, id, want.NextID, "ids continue above the log's")
}

// writeGoldenLog writes testdata/log-v1 and its expectations with a fixed
// script.
func writeGoldenLog(t *testing.T, dst string) {
	opts := testOptions(t)
	opts.SegmentSize = minSegmentSize
	h := newHarness(t, opts)
	h.open()
	q := h.q
	var ids []uint64
	for i := range 24 {
		delay := time.Duration(0)
		if i%5 == 0 {
			delay = time.Hour
		}
		id, _, err := q.put(fmt.Sprintf("tube-%d", i%3), uint32(i*100), delay, strings.Repeat(string(rune('a'+i)), 10+i))
		require.NoError(t, err)
		ids = append(ids, id)
	}
	q.reserve(ids[1])
	_, err := q.release(ids[1], 7, 0)
	require.NoError(t, err)
	q.reserve(ids[2])
	_, err = q.release(ids[2], 8, time.Minute)
	require.NoError(t, err)
	q.reserve(ids[4])
	_, err = q.bury(ids[4], 9)
	require.NoError(t, err)
	q.reserve(ids[7])
	_, err = q.bury(ids[7], 1)
	require.NoError(t, err)
	_, err = q.kick(ids[7])
	require.NoError(t, err)
	_, err = q.reserveJob(ids[8])
	require.NoError(t, err)
	for _, i := range []int{3, 6, 13} {
		_, err = q.del(ids[i])
		require.NoError(t, err)
	}
	_, seq, err := q.clear("tube-2")
	require.NoError(t, err)
	require.NoError(t, h.wait(seq))
	logged := q.loggedCopy()
	h.close()

	require.NoError(t, os.RemoveAll(dst))
	require.NoError(t, os.MkdirAll(dst, 0o755))
	copySegments(t, h.dir, dst)
	var g goldenLog
	for _, r := range logged {
		g.Jobs = append(g.Jobs, toGolden(&r))
	}
	sort.Slice(g.Jobs, func(i, k int) bool { return g.Jobs[i].ID < g.Jobs[k].ID })
	g.NextID = ids[len(ids)-1] + 1
	b, err := json.MarshalIndent(g, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join("testdata", "log-v1.json"), append(b, '\n'), 0o644))
	require.Greater(t, len(segmentFiles(t, dst)), 2, "the fixture spans several segments")
}

// copySegments copies the segment files of src (nothing else) into dst.
func copySegments(t *testing.T, src, dst string) {
	t.Helper()
	files := segmentFiles(t, src)
	require.NotEmpty(t, files)
	for _, f := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dst, filepath.Base(f.path)), readFile(t, f.path), 0o644))
	}
}

func writeHex(t *testing.T, path, comment string, b []byte) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# %s\n", comment)
	s := hex.EncodeToString(b)
	for len(s) > 64 {
		sb.WriteString(s[:64] + "\n")
		s = s[64:]
	}
	sb.WriteString(s + "\n")
	require.NoError(t, os.WriteFile(path, []byte(sb.String()), 0o644))
}

// readHex reads a fixture: hex digits, whitespace ignored, '#' lines are
// comments.
func readHex(t *testing.T, path string) []byte {
	t.Helper()
	var s strings.Builder
	for _, line := range strings.Split(string(readFile(t, path)), "\n") {
		if !strings.HasPrefix(line, "#") {
			s.WriteString(strings.Join(strings.Fields(line), ""))
		}
	}
	b, err := hex.DecodeString(s.String())
	require.NoError(t, err, path)
	return b
}
