package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// TestFdBurst: a burst of twice as many connections as the server has file
// descriptors must not stop it. The excess is refused (closed at once), the
// clients already connected keep being served, and once the burst is gone a
// new client is served again. The limit is lowered on the running server
// (prlimit), below the connection cap it derived from the limit it started
// with, so that accept itself runs out of descriptors.
func TestFdBurst(t *testing.T) {
	for _, limit := range []int{256, 1024} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) { fdBurst(t, limit, 2*limit) })
	}
}

func fdBurst(t *testing.T, limit, burst int) {
	ensureFiles(t, burst+256)
	p := startSelf(t, "-l", "127.0.0.1", "-p", "0")
	addr := p.Addr()
	first := dialServe(t, addr)
	rl := unix.Rlimit{Cur: uint64(limit), Max: uint64(limit)}
	require.NoError(t, unix.Prlimit(p.Pid(), unix.RLIMIT_NOFILE, &rl, nil))

	conns := make([]net.Conn, burst)
	var wg sync.WaitGroup
	var served, refused int
	var mu sync.Mutex
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < burst; i += 32 {
				c, err := net.DialTimeout("tcp", addr, waitLong)
				if err != nil {
					continue // the backlog overflowed: refused too
				}
				conns[i] = c
				ok := probe(c)
				mu.Lock()
				if ok {
					served++
				} else {
					refused++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("limit %d: %d served, %d refused of %d", limit, served, refused, burst)
	assert.Positive(t, refused, "the burst exceeded the descriptors")
	assert.Positive(t, served)
	require.NoError(t, syscall.Kill(p.Pid(), 0), "stalkd is alive")
	first.Do("list-tube-used\r\n", "USING default\r\n")

	for _, c := range conns {
		if c != nil {
			_ = c.Close()
		}
	}
	requireServedAgain(t, addr, "a new client is served after the burst")
	require.NoError(t, syscall.Kill(p.Pid(), 0), "stalkd is alive")
}

// probe sends a command and reports whether it was answered (false: the
// connection was closed instead).
func probe(c net.Conn) bool {
	_ = c.SetDeadline(time.Now().Add(waitLong))
	if _, err := io.WriteString(c, "list-tube-used\r\n"); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "USING default\r\n"
}

// requireServedAgain waits until a new connection to addr is served.
func requireServedAgain(t *testing.T, addr, msg string) {
	require.Eventually(t, func() bool {
		c, err := net.DialTimeout("tcp", addr, waitLong)
		if err != nil {
			return false
		}
		defer c.Close()
		return probe(c)
	}, waitLong, 10*time.Millisecond, msg)
}

// dialServe connects to addr and sees the connection served.
func dialServe(t *testing.T, addr string) *enginetest.Conn {
	c := enginetest.Dial(t, addr)
	c.Do("list-tube-used\r\n", "USING default\r\n")
	return c
}

// ensureFiles raises this process's open-file limit to at least n, or skips.
func ensureFiles(t *testing.T, n int) {
	var rl unix.Rlimit
	require.NoError(t, unix.Getrlimit(unix.RLIMIT_NOFILE, &rl))
	if rl.Cur >= uint64(n) {
		return
	}
	if rl.Max < uint64(n) {
		t.Skipf("needs %d open files; the hard limit is %d", n, rl.Max)
	}
	old := rl
	rl.Cur = uint64(n)
	require.NoError(t, unix.Setrlimit(unix.RLIMIT_NOFILE, &rl))
	t.Cleanup(func() { _ = unix.Setrlimit(unix.RLIMIT_NOFILE, &old) })
}
