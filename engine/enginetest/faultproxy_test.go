package enginetest

import (
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echoServer echoes every connection until EOF, then closes it; received
// counts the bytes it read.
func echoServer(t *testing.T) (addr string, received *atomic.Int64) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	received = new(atomic.Int64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					received.Add(int64(n))
					if n > 0 {
						if _, werr := c.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), received
}

func dialProxy(t *testing.T, p *FaultProxy) net.Conn {
	c, err := net.DialTimeout("tcp", p.Addr(), Timeout)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(Timeout)))
	return c
}

// roundTrip writes msg and reads its echo.
func roundTrip(t *testing.T, c net.Conn, msg string) {
	_, err := io.WriteString(c, msg)
	require.NoError(t, err)
	got := make([]byte, len(msg))
	_, err = io.ReadFull(c, got)
	require.NoError(t, err)
	require.Equal(t, msg, string(got))
}

// expectClosed: the next read ends the connection (EOF or reset), rather
// than timing out.
func expectClosed(t *testing.T, c net.Conn) {
	_, err := c.Read(make([]byte, 1))
	require.Error(t, err)
	var ne net.Error
	assert.False(t, errors.As(err, &ne) && ne.Timeout(), "closed, not silent: %v", err)
}

func eventually(t *testing.T, what string, f func() bool) {
	require.Eventually(t, f, Timeout, time.Millisecond, what)
}

func TestFaultProxyPass(t *testing.T) {
	target, _ := echoServer(t)
	p := NewFaultProxy(t, target)
	assert.Equal(t, target, p.Target())
	c := dialProxy(t, p)
	roundTrip(t, c, "hello")
	eventually(t, "counted", func() bool { s := p.Stats(); return s.Passed == [2]int64{5, 5} })
	assert.Equal(t, int64(1), p.Stats().Accepted)
}

// TestFaultProxyDelay: a delayed direction adds at least its delay; the
// two directions add up.
func TestFaultProxyDelay(t *testing.T) {
	target, _ := echoServer(t)
	p := NewFaultProxy(t, target)
	c := dialProxy(t, p)
	const d = 40 * time.Millisecond
	p.Set(Up, Delay(d))
	start := time.Now()
	roundTrip(t, c, "one")
	assert.GreaterOrEqual(t, time.Since(start), d)
	p.Set(Down, Delay(d))
	start = time.Now()
	roundTrip(t, c, "two")
	assert.GreaterOrEqual(t, time.Since(start), 2*d)
}

// TestFaultProxyDropUp: dropped bytes never reach the target; the
// connection that lost them is closed when the direction passes again, and
// a new one passes.
func TestFaultProxyDropUp(t *testing.T) {
	target, received := echoServer(t)
	p := NewFaultProxy(t, target)
	c := dialProxy(t, p)
	roundTrip(t, c, "ok")
	p.Set(Up, Drop)
	_, err := io.WriteString(c, "lost!")
	require.NoError(t, err, "the sender's write succeeds")
	eventually(t, "dropped", func() bool { return p.Stats().Dropped[Up] == 5 })
	assert.Equal(t, int64(2), received.Load(), "nothing past the first message reached the target")
	p.Set(Up, Pass)
	expectClosed(t, c)
	roundTrip(t, dialProxy(t, p), "again")
}

// TestFaultProxyDropDown: the target gets the bytes, its replies are
// dropped; Heal closes the holed connection.
func TestFaultProxyDropDown(t *testing.T) {
	target, received := echoServer(t)
	p := NewFaultProxy(t, target)
	c := dialProxy(t, p)
	p.Set(Down, Drop)
	_, err := io.WriteString(c, "ping")
	require.NoError(t, err)
	eventually(t, "echo dropped", func() bool { return p.Stats().Dropped[Down] == 4 })
	assert.Equal(t, int64(4), received.Load())
	p.Heal()
	expectClosed(t, c)
	roundTrip(t, dialProxy(t, p), "pong")
}

// TestFaultProxyCut: Cut closes the open connections and refuses new ones
// until Heal.
func TestFaultProxyCut(t *testing.T) {
	target, _ := echoServer(t)
	p := NewFaultProxy(t, target)
	c := dialProxy(t, p)
	roundTrip(t, c, "before")
	p.Cut()
	expectClosed(t, c)
	expectClosed(t, dialProxy(t, p))
	eventually(t, "refused", func() bool { return p.Stats().Refused == 1 })
	p.Heal()
	roundTrip(t, dialProxy(t, p), "after")
	assert.Equal(t, int64(2), p.Stats().Accepted)
}

// TestFaultProxyHalfClose: the dialer's EOF reaches the target after the
// bytes before it, and the target's answer and EOF come back.
func TestFaultProxyHalfClose(t *testing.T) {
	target, _ := echoServer(t)
	p := NewFaultProxy(t, target)
	c := dialProxy(t, p)
	p.Set(Up, Delay(10*time.Millisecond))
	_, err := io.WriteString(c, "last words")
	require.NoError(t, err)
	require.NoError(t, c.(*net.TCPConn).CloseWrite())
	got, err := io.ReadAll(c)
	require.NoError(t, err)
	assert.Equal(t, "last words", string(got))
}

// TestFaultProxyClose: Close ends the open connections and the listener,
// and returns once every goroutine is done.
func TestFaultProxyClose(t *testing.T) {
	target, _ := echoServer(t)
	p := NewFaultProxy(t, target)
	c := dialProxy(t, p)
	roundTrip(t, c, "x")
	p.Set(Down, Delay(time.Hour)) // a writer waiting out a long delay
	_, err := io.WriteString(c, "y")
	require.NoError(t, err)
	p.Close()
	expectClosed(t, c)
	_, err = net.DialTimeout("tcp", p.Addr(), Timeout)
	assert.Error(t, err, "no longer listening")
	p.Close() // idempotent
}
