package fuzz

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/wal/binlog"
)

// FuzzBinlogReplay feeds arbitrary bytes to the beanstalkd binlog reader
// as one file (cut at split into two, binlog.1 and binlog.2): it must
// never panic, never allocate much more than the input's size, and what
// it keeps must be sound jobs that the writer's records read back
// unchanged.
//
//	go test ./fuzz -run=^$ -fuzz=FuzzBinlogReplay -fuzztime=2m
func FuzzBinlogReplay(f *testing.F) {
	r := func(id uint64, st binlog.State, body string) binlog.Rec {
		return binlog.Rec{ID: id, Pri: 3, TTR: 1e9, State: st, BodySize: int32(len(body)), Created: 1, Deadline: 2}
	}
	seed := binlog.AppendHeader(nil, binlog.Version7)
	one := r(1, binlog.Ready, "hi\r\n")
	seed = binlog.AppendFull(seed, "default", &one, []byte("hi\r\n"))
	two := r(2, binlog.Delayed, "x\r\n")
	seed = binlog.AppendFull(seed, "tube", &two, []byte("x\r\n"))
	bury := r(1, binlog.Buried, "")
	seed = binlog.AppendShort(seed, &bury)
	seed = binlog.AppendShort(seed, &binlog.Rec{ID: 2, State: binlog.Invalid})
	f.Add(seed, uint16(0))
	f.Add(seed, uint16(40))
	f.Add(append(seed, make([]byte, 100)...), uint16(0))
	v5 := binlog.AppendHeader(nil, binlog.Version5)
	v5 = binlog.AppendFull5(v5, "old", &one, []byte("hi\r\n"))
	v5 = binlog.AppendShort5(v5, &bury)
	f.Add(v5, uint16(0))
	f.Add([]byte{7, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f}, uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, split uint16) {
		cut := int(split) % (len(data) + 1)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		p := binlog.NewReplayer()
		p.ReadFile("binlog.1", 1, bytes.NewReader(data[:cut]), int64(cut))
		p.ReadFile("binlog.2", 2, bytes.NewReader(data[cut:]), int64(len(data)-cut))
		jobs := p.Jobs()
		runtime.ReadMemStats(&after)
		// Two 64 KiB read buffers and bookkeeping, then at most a few times
		// the input (a job per record of at least 84 bytes, bodies read).
		require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20+32*len(data)))

		file := binlog.AppendHeader(nil, binlog.Version7)
		for _, j := range jobs {
			require.NotZero(t, j.ID)
			require.NotEmpty(t, j.Tube)
			require.LessOrEqual(t, len(j.Tube), binlog.MaxTubeName)
			require.Contains(t, []binlog.State{binlog.Ready, binlog.Buried, binlog.Delayed}, j.State)
			require.EqualValues(t, j.BodySize, len(j.Body))
			require.LessOrEqual(t, j.ID, p.MaxID())
			file = binlog.AppendFull(file, j.Tube, &j.Rec, j.Body)
		}
		again := binlog.NewReplayer()
		again.ReadFile("binlog.1", 1, bytes.NewReader(file), int64(len(file)))
		require.Empty(t, again.Problems())
		back := again.Jobs()
		require.Len(t, back, len(jobs))
		for i, j := range jobs {
			require.Equal(t, j.Rec, back[i].Rec)
			require.Equal(t, j.Tube, back[i].Tube)
			require.Equal(t, j.Body, back[i].Body)
		}
	})
}
