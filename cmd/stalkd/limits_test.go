package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// logTail collects a child's JSON log lines.
type logTail struct {
	mu    sync.Mutex
	lines []string
}

// follow reads stderr until the "listening" line, returns its address and
// keeps collecting the lines after it.
func follow(t *testing.T, stderr io.Reader) (string, *logTail) {
	sc := bufio.NewScanner(stderr)
	lt := &logTail{}
	for sc.Scan() {
		var line struct{ Message, Addr string }
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Message == "listening" {
			go func() {
				for sc.Scan() {
					lt.mu.Lock()
					lt.lines = append(lt.lines, sc.Text())
					lt.mu.Unlock()
				}
			}()
			return line.Addr, lt
		}
	}
	t.Fatal("no listening line")
	return "", nil
}

// count returns how many lines so far contain s.
func (lt *logTail) count(s string) int {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	n := 0
	for _, l := range lt.lines {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

// TestMaxConnectionsFlag: past N open connections a new one is closed at
// once, the N keep being served, the refusals are logged at most once a
// second, and a place that frees up is taken again.
func TestMaxConnectionsFlag(t *testing.T) {
	_, stderr := stalkd(t, "-l", "127.0.0.1", "-p", "0", "--max-connections", "3")
	addr, logs := follow(t, stderr)
	var open []*client
	for range 3 {
		open = append(open, dialServe(t, addr))
	}
	start := time.Now()
	for range 20 {
		c, err := net.DialTimeout("tcp", addr, waitLong)
		require.NoError(t, err)
		assert.False(t, probe(c), "connection 4 and later are closed")
		_ = c.Close()
	}
	for _, c := range open {
		c.roundTrip("list-tube-used\r\n", "USING default\r\n")
	}
	require.Eventually(t, func() bool { return logs.count("too many connections") > 0 }, waitLong, time.Millisecond)
	elapsed := time.Since(start)
	assert.LessOrEqual(t, logs.count("too many connections"), 1+int(elapsed/time.Second),
		"20 refusals in %v, logged at most once a second", elapsed)

	require.NoError(t, open[0].c.Close())
	require.Eventually(t, func() bool {
		c, err := net.DialTimeout("tcp", addr, waitLong)
		if err != nil {
			return false
		}
		defer c.Close()
		return probe(c)
	}, waitLong, 10*time.Millisecond, "a freed place is taken again")
}

// TestIdleTimeoutFlag: a connection that sends nothing is closed; a worker
// blocked in reserve since before is not, and still gets its job.
func TestIdleTimeoutFlag(t *testing.T) {
	_, stderr := stalkd(t, "-l", "127.0.0.1", "-p", "0", "--idle-timeout", "1s")
	addr, _ := follow(t, stderr)
	worker := dialServe(t, addr)
	_, err := io.WriteString(worker.c, "reserve\r\n")
	require.NoError(t, err)
	idle := dialServe(t, addr) // its last word comes after the worker's

	require.NoError(t, idle.c.SetReadDeadline(time.Now().Add(waitLong)))
	_, err = idle.r.ReadByte()
	require.ErrorIs(t, err, io.EOF, "the idle connection is closed")

	producer := dialServe(t, addr)
	producer.roundTrip("put 0 0 100 1\r\nx\r\n", "INSERTED 1\r\n")
	require.NoError(t, worker.c.SetReadDeadline(time.Now().Add(waitLong)))
	line, err := worker.r.ReadString('\n')
	require.NoError(t, err, "the worker blocked in reserve is still connected")
	assert.Equal(t, "RESERVED 1 1\r\n", line)
}
