package binlog_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/wal/binlog"
)

func rec(id uint64, st binlog.State) binlog.Rec {
	return binlog.Rec{ID: id, Pri: 10, TTR: 60e9, Created: 1_700_000_000e9, State: st}
}

func full(dst []byte, tube string, r binlog.Rec, body string) []byte {
	r.BodySize = int32(len(body))
	return binlog.AppendFull(dst, tube, &r, []byte(body))
}

func short(dst []byte, r binlog.Rec) []byte { return binlog.AppendShort(dst, &r) }

func hdr() []byte { return binlog.AppendHeader(nil, binlog.Version7) }

// replay reads files (one []byte each) as binlog.1, binlog.2, ... and
// returns the live jobs by id and the problems.
func replay(t *testing.T, files ...[]byte) (map[uint64]*binlog.Job, []binlog.Problem) {
	t.Helper()
	p := binlog.NewReplayer()
	for i, f := range files {
		p.ReadFile(binlog.FileName(i+1), i+1, bytes.NewReader(f), int64(len(f)))
	}
	out := map[uint64]*binlog.Job{}
	for _, j := range p.Jobs() {
		out[j.ID] = j
	}
	return out, p.Problems()
}

func TestRecordsAsTheReferenceReadsThem(t *testing.T) {
	t.Run("full, short, delete, reserved read as ready", func(t *testing.T) {
		f := hdr()
		f = full(f, "a", rec(1, binlog.Ready), "one\r\n")
		f = full(f, "b", rec(2, binlog.Reserved), "two\r\n")
		f = full(f, "a", rec(3, binlog.Ready), "three\r\n")
		b := rec(1, binlog.Buried)
		b.Buries, b.Pri = 1, 7
		f = short(f, b)
		f = short(f, rec(3, binlog.Invalid))
		jobs, probs := replay(t, f)
		require.Empty(t, probs)
		require.Len(t, jobs, 2)
		require.Equal(t, binlog.Buried, jobs[1].State)
		require.EqualValues(t, 7, jobs[1].Pri)
		require.EqualValues(t, 1, jobs[1].Buries)
		require.Equal(t, "one\r\n", string(jobs[1].Body), "a short record keeps the body")
		require.Equal(t, binlog.Ready, jobs[2].State)
		require.Equal(t, "b", jobs[2].Tube)
	})
	t.Run("the zero tail ends the file", func(t *testing.T) {
		f := full(hdr(), "a", rec(1, binlog.Ready), "x\r\n")
		f = append(f, make([]byte, 4096)...)
		f = full(f, "a", rec(2, binlog.Ready), "y\r\n") // after the tail: never read
		jobs, probs := replay(t, f)
		require.Empty(t, probs)
		require.Len(t, jobs, 1)
	})
	t.Run("a file ending inside a name length ends quietly", func(t *testing.T) {
		f := full(hdr(), "a", rec(1, binlog.Ready), "x\r\n")
		jobs, probs := replay(t, append(f, 1, 0))
		require.Empty(t, probs)
		require.Len(t, jobs, 1)
	})
	t.Run("a short record of an unknown job is ignored", func(t *testing.T) {
		p := binlog.NewReplayer()
		f := short(hdr(), rec(9, binlog.Buried))
		p.ReadFile("binlog.1", 1, bytes.NewReader(f), int64(len(f)))
		require.Zero(t, p.Len())
		require.Equal(t, 1, p.Ignored())
		require.EqualValues(t, 9, p.MaxID(), "its id is still spent")
	})
	t.Run("a second full record moves the job but keeps its tube", func(t *testing.T) {
		f1 := full(hdr(), "a", rec(1, binlog.Ready), "x\r\n")
		r := rec(1, binlog.Delayed)
		r.Deadline = 5
		f2 := full(hdr(), "other", r, "x\r\n")
		jobs, probs := replay(t, f1, f2)
		require.Empty(t, probs)
		require.Equal(t, "a", jobs[1].Tube)
		require.Equal(t, 2, jobs[1].File)
		require.Equal(t, binlog.Delayed, jobs[1].State)
	})
	t.Run("order of first appearance", func(t *testing.T) {
		f := hdr()
		for _, id := range []uint64{5, 2, 9} {
			f = full(f, "a", rec(id, binlog.Buried), "x\r\n")
		}
		f = short(f, rec(2, binlog.Buried))
		p := binlog.NewReplayer()
		p.ReadFile("binlog.1", 1, bytes.NewReader(f), int64(len(f)))
		var ids []uint64
		for _, j := range p.Jobs() {
			ids = append(ids, j.ID)
		}
		require.Equal(t, []uint64{5, 2, 9}, ids)
	})
}

func TestDamageAbandonsTheRestOfTheFile(t *testing.T) {
	good := full(hdr(), "a", rec(1, binlog.Ready), "one\r\n")
	off := int64(len(good))
	after := full(nil, "a", rec(7, binlog.Ready), "later\r\n")
	next := full(hdr(), "a", rec(8, binlog.Ready), "next file\r\n")
	le := func(n int32) []byte { return binlog.AppendHeader(nil, int(n)) }
	cases := []struct {
		name   string
		damage []byte
		msg    string
		gone1  bool // job 1 dropped with the damage
	}{
		{"name length over 200", le(201), "namelen 201 exceeds maximum of 200", false},
		{"negative name length", le(-1), "namelen -1 is negative", false},
		{"cut inside the name", append(le(5), "ab"...), "tube name", false},
		{"cut inside the Jobrec", full(nil, "a", rec(2, binlog.Ready), "x\r\n")[:40], "job struct", false},
		{"cut inside the body", full(nil, "a", rec(2, binlog.Ready), "xxxxxx\r\n")[:4+1+80+3], "job body", false},
		{"cut inside a moved job's body drops the job", full(nil, "a", rec(1, binlog.Ready), "one\r\n")[:4+1+80+2], "job body", true},
		{"unknown state drops the job", short(nil, rec(1, binlog.State(5))), "unknown state 5", true},
		{"negative body size", func() []byte {
			r := rec(2, binlog.Ready)
			r.BodySize = -3
			return binlog.AppendFull(nil, "a", &r, nil)
		}(), "too big", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := append(append([]byte{}, good...), c.damage...)
			if !strings.HasPrefix(c.name, "cut") {
				f = append(f, after...) // a cut ends the file; other damage has records after it
			}
			jobs, probs := replay(t, f, next)
			require.Len(t, probs, 1)
			require.Equal(t, "binlog.1", probs[0].Path)
			require.Equal(t, off, probs[0].Offset)
			require.Contains(t, probs[0].Err, c.msg)
			require.NotContains(t, jobs, uint64(7), "the rest of the file is abandoned")
			require.Contains(t, jobs, uint64(8), "the next file is read")
			require.Equal(t, !c.gone1, jobs[1] != nil)
		})
	}
	t.Run("unknown version", func(t *testing.T) {
		f := append(binlog.AppendHeader(nil, 6), good[4:]...)
		jobs, probs := replay(t, f)
		require.Empty(t, jobs)
		require.Len(t, probs, 1)
		require.Contains(t, probs[0].Err, "unknown version: 6")
	})
	t.Run("bigger than MaxBody", func(t *testing.T) {
		p := binlog.NewReplayer()
		p.MaxBody = 4
		p.ReadFile("binlog.1", 1, bytes.NewReader(good), int64(len(good)))
		require.Zero(t, p.Len())
		require.Contains(t, p.Problems()[0].Err, "job 1 is too big (5 > 4)")
	})
	t.Run("a body longer than the file allocates nothing", func(t *testing.T) {
		r := rec(2, binlog.Ready)
		r.BodySize = 1 << 30
		f := binlog.AppendFull(hdr(), "a", &r, nil)
		allocs := testing.AllocsPerRun(10, func() {
			p := binlog.NewReplayer()
			p.ReadFile("binlog.1", 1, bytes.NewReader(f), int64(len(f)))
		})
		require.Less(t, allocs, 30.0)
		_, probs := replay(t, f)
		require.Contains(t, probs[0].Err, "unexpected EOF reading 1073741824 bytes (got 0): job body")
	})
}

func TestVersion5(t *testing.T) {
	r := rec(4, binlog.Delayed)
	r.Delay, r.Deadline, r.Created, r.TTR = 30e9, 1_700_000_030e9, 1_700_000_000e9, 120e9
	r.BodySize = 4
	f := binlog.AppendHeader(nil, binlog.Version5)
	f = binlog.AppendFull5(f, "old", &r, []byte("v5\r\n"))
	f = binlog.AppendFull5(f, "old", &binlog.Rec{ID: 5, BodySize: 2, State: binlog.Ready}, []byte("\r\n"))
	f = binlog.AppendShort5(f, &binlog.Rec{ID: 5, State: binlog.Invalid})
	require.Equal(t, 4+8+3+77+4+8+3+77+2+8+77, len(f))
	jobs, probs := replay(t, f)
	require.Empty(t, probs)
	require.Len(t, jobs, 1)
	got := jobs[4]
	require.Equal(t, "old", got.Tube)
	require.Equal(t, "v5\r\n", string(got.Body))
	require.Equal(t, r.Delay, got.Delay)
	require.Equal(t, r.Deadline, got.Deadline)
	require.Equal(t, r.Created, got.Created)
	require.Equal(t, r.TTR, got.TTR)
}

func TestReadDirSkipsMissingFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(n int, data []byte) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, binlog.FileName(n)), data, 0o400))
	}
	write(2, full(hdr(), "a", rec(1, binlog.Ready), "x\r\n"))
	write(5, short(hdr(), rec(1, binlog.Invalid)))
	write(6, full(hdr(), "a", rec(3, binlog.Ready), "y\r\n"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "binlog.7.bak"), []byte("junk"), 0o600))
	d, err := binlog.ReadDir(dir, 0)
	require.NoError(t, err)
	require.Equal(t, []int{3, 4}, d.Missing)
	require.Len(t, d.Files, 3)
	require.Len(t, d.Jobs, 1)
	require.EqualValues(t, 3, d.MaxID)
}

func TestParseName(t *testing.T) {
	for name, want := range map[string]int{"binlog.1": 1, "binlog.0": 0, "binlog.123456789": 123456789} {
		n, ok := binlog.ParseName(name)
		require.True(t, ok, name)
		require.Equal(t, want, n)
	}
	for _, name := range []string{"binlog.", "binlog.+1", "binlog.-1", "binlog.1.bak", "binlog.1234567890", "binlog. 1", "lock"} {
		_, ok := binlog.ParseName(name)
		require.False(t, ok, name)
	}
}

func TestWriterRoundTrip(t *testing.T) {
	dir := t.TempDir()
	w, err := binlog.NewWriter(dir, 1024)
	require.NoError(t, err)
	long := strings.Repeat("t", binlog.MaxTubeName)
	for id := uint64(1); id <= 40; id++ {
		r := rec(id, binlog.State(1+id%4))
		require.NoError(t, w.Put([]string{"a", long}[id%2], r, []byte(strings.Repeat("b", int(id))+"\r\n")))
	}
	require.NoError(t, w.Put("a", rec(100, binlog.Ready), []byte("\r\n")))
	require.NoError(t, w.Delete(100))
	require.Error(t, w.Put(long+"x", rec(101, binlog.Ready), nil))
	files, err := w.Close()
	require.NoError(t, err)
	require.Greater(t, len(files), 3)
	for _, f := range files {
		info, err := os.Stat(f)
		require.NoError(t, err)
		require.LessOrEqual(t, info.Size(), int64(1024+binlog.RecSize+4+binlog.MaxTubeName+50))
	}
	d, err := binlog.ReadDir(dir, 0)
	require.NoError(t, err)
	require.Empty(t, d.Problems)
	require.Len(t, d.Jobs, 40)
	require.EqualValues(t, 100, d.MaxID)
	for i, j := range d.Jobs {
		id := uint64(i + 1)
		require.Equal(t, id, j.ID)
		want := binlog.State(1 + id%4)
		if want == binlog.Reserved {
			want = binlog.Ready
		}
		require.Equal(t, want, j.State)
		require.Equal(t, []string{"a", long}[id%2], j.Tube)
		require.Equal(t, strings.Repeat("b", int(id))+"\r\n", string(j.Body))
	}
	_, err = binlog.NewWriter(dir, 0)
	require.ErrorIs(t, err, binlog.ErrNotEmpty)
}
