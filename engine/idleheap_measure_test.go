package engine

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"
)

// TestMeasureIdleConnHeap (STALKD_MEASURE_IDLE_HEAP=1) prints the live heap
// the server side holds per idle connection: 4,000 connections each answer
// one list-tube-used and then sit idle. Allocations are attributed with
// MemProfileRate=1: a record whose stack does not pass through this test's
// dialing code is the server's.
func TestMeasureIdleConnHeap(t *testing.T) {
	if os.Getenv("STALKD_MEASURE_IDLE_HEAP") == "" {
		t.Skip("set STALKD_MEASURE_IDLE_HEAP=1")
	}
	runtime.MemProfileRate = 1
	const n = 4000
	s := startServer(t, func(c *Config) { c.Logger = zerolog.Nop() })
	addr := addrOf(t, s)
	before := profile()
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	conns := make([]net.Conn, 0, n)
	buf := make([]byte, 64)
	for i := 0; i < n; i++ {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		_, err = c.Write([]byte("list-tube-used\r\n"))
		require.NoError(t, err)
		_ = c.SetReadDeadline(time.Now().Add(ioTimeout))
		k, err := c.Read(buf)
		require.NoError(t, err)
		require.Equal(t, "USING default\r\n", string(buf[:k]))
		conns = append(conns, c)
	}
	time.Sleep(200 * time.Millisecond)
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	after := profile()
	total := int64(0)
	type row struct {
		k string
		b int64
	}
	var rows []row
	for k, v := range after {
		d := v - before[k]
		if d <= 0 || strings.Contains(k, "TestMeasureIdleConnHeap") {
			continue
		}
		total += d
		rows = append(rows, row{k, d})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].b > rows[j].b })
	for _, r := range rows {
		if r.b*10 < n { // under 0.1 B per connection
			continue
		}
		fmt.Printf("%8.1f B/conn  %s\n", float64(r.b)/n, r.k)
	}
	fmt.Printf("server live heap per idle conn: %.1f B (HeapAlloc delta incl. client side: %.1f B)\n",
		float64(total)/n, float64(int64(ms1.HeapAlloc)-int64(ms0.HeapAlloc))/n)
	runtime.KeepAlive(conns)
	for _, c := range conns {
		_ = c.Close()
	}
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
			if strings.Contains(f.Function, "TestMeasureIdleConnHeap") {
				parts = append(parts, "TestMeasureIdleConnHeap")
			}
			if !more {
				break
			}
		}
		out[strings.Join(parts, " < ")] += r.InUseBytes()
	}
	return out
}
