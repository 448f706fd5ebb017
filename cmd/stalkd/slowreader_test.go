package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// rssBytes reads a process's resident set size from /proc.
func rssBytes(t *testing.T, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// TestSlowReadersBoundedMemory: 60 clients pipeline peeks of a 60 KB job
// and never read. The server's memory stays bounded (it reached 2.4 GB),
// another client is answered meanwhile, and the memory goes back to the
// system once they are gone.
func TestSlowReadersBoundedMemory(t *testing.T) {
	slow := 60
	if v := os.Getenv("STALKD_SLOW_READERS"); v != "" { // for measuring by hand
		slow, _ = strconv.Atoi(v)
	}
	p := enginetest.StartProcess(t, "-l", "127.0.0.1", "-p", "0") // not race-instrumented: its memory is the real one's
	addr, pid := p.Addr(), p.Pid()
	normal := dialServe(t, addr)
	body := bytes.Repeat([]byte("x"), 60000)
	normal.Do(fmt.Sprintf("put 0 0 100 %d\r\n%s\r\n", len(body), body), "INSERTED 1\r\n")
	base := rssBytes(t, pid)

	peeks := bytes.Repeat([]byte("peek 1\r\n"), 8192) // 64 KB of commands
	var wg sync.WaitGroup
	conns := make([]net.Conn, slow)
	for i := range conns {
		c, err := net.DialTimeout("tcp", addr, waitLong)
		require.NoError(t, err)
		conns[i] = c
		wg.Add(1)
		go func() { // send 32 MB of peeks, or until the server stops taking them
			defer wg.Done()
			_ = c.SetWriteDeadline(time.Now().Add(3 * time.Second))
			for range 512 {
				if _, err := c.Write(peeks); err != nil {
					return
				}
			}
		}()
	}
	var peak int64
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-time.After(20 * time.Millisecond):
		}
		peak = max(peak, rssBytes(t, pid))
		normal.Do("list-tube-used\r\n", "USING default\r\n")
	}
	t.Logf("%d slow readers: RSS %d MB before, peak %d MB", slow, base>>20, peak>>20)
	assert.Less(t, peak, int64(200<<20), "peak RSS")
	normal.Do("peek 1\r\n", fmt.Sprintf("FOUND 1 %d\r\n%s\r\n", len(body), body))

	for _, c := range conns {
		_ = c.Close()
	}
	rss := rssBytes(t, pid)
	for deadline := time.Now().Add(waitLong); rss >= base+32<<20 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		rss = rssBytes(t, pid)
	}
	assert.Less(t, rss, base+32<<20, "memory goes back to the system")
	t.Logf("RSS after they left: %d MB", rss>>20)
}
