package engine

import (
	"net"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"
)

// BenchmarkIdleConnHeap reports the live heap the server side holds per
// idle connection (B/idle-conn): 4,000 connections each answer one
// list-tube-used and then sit idle. Allocations are attributed with
// MemProfileRate=1: a record whose stack does not pass through
// measureIdleHeap's dialing is the server's. With -v it also logs the
// allocation sites. Run: go test -run '^$' -bench IdleConnHeap -benchtime 1x -v ./engine
func BenchmarkIdleConnHeap(b *testing.B) {
	var perConn float64
	for b.Loop() {
		perConn = measureIdleHeap(b)
	}
	b.ReportMetric(perConn, "B/idle-conn")
}

func measureIdleHeap(b *testing.B) float64 {
	old := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = old }()
	const n = 4000
	s := startServer(b, func(c *Config) { c.Logger = zerolog.Nop() })
	addr := addrOf(b, s)
	before := profile()
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}()
	buf := make([]byte, 64)
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", addr)
		require.NoError(b, err)
		conns = append(conns, c)
		_, err = c.Write([]byte("list-tube-used\r\n"))
		require.NoError(b, err)
		_ = c.SetReadDeadline(time.Now().Add(ioTimeout))
		k, err := c.Read(buf)
		require.NoError(b, err)
		require.Equal(b, "USING default\r\n", string(buf[:k]))
	}
	time.Sleep(200 * time.Millisecond) // let the loops finish their last callbacks
	after := profile()
	total := int64(0)
	type row struct {
		k string
		b int64
	}
	var rows []row
	for k, v := range after {
		d := v - before[k]
		if d <= 0 || strings.Contains(k, "measureIdleHeap") {
			continue
		}
		total += d
		rows = append(rows, row{k, d})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].b > rows[j].b })
	for _, r := range rows {
		if r.b*10 >= n { // at least 0.1 B per connection
			b.Logf("%8.1f B/conn  %s", float64(r.b)/n, r.k)
		}
	}
	runtime.KeepAlive(conns)
	return float64(total) / n
}

// profile sums the in-use bytes of the heap profile by allocation site (the
// first few frames of the stack).
func profile() map[string]int64 {
	runtime.GC()
	var recs []runtime.MemProfileRecord
	n, _ := runtime.MemProfile(nil, true)
	for {
		recs = make([]runtime.MemProfileRecord, n+100)
		var ok bool
		n, ok = runtime.MemProfile(recs, true)
		if ok {
			recs = recs[:n]
			break
		}
	}
	out := map[string]int64{}
	for _, r := range recs {
		frames := runtime.CallersFrames(r.Stack())
		var parts []string
		for {
			f, more := frames.Next()
			name := f.Function
			if i := strings.LastIndex(name, "/"); i >= 0 {
				name = name[i+1:]
			}
			if len(parts) < 4 && !strings.HasPrefix(name, "runtime.") {
				parts = append(parts, name)
			}
			if strings.Contains(f.Function, "measureIdleHeap") {
				parts = append(parts, "measureIdleHeap")
			}
			if !more {
				break
			}
		}
		out[strings.Join(parts, " < ")] += r.InUseBytes()
	}
	return out
}
