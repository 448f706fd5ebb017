package enginetest

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Client is a minimal protocol client that returns errors instead of
// failing the test: one command, one reply. Load goroutines (Produce,
// Consume) use it against servers that may die under them. It is used by
// one goroutine.
type Client struct {
	c net.Conn
	r *bufio.Reader
}

// DialClient connects a Client to a TCP server (a 10 s dial bound).
func DialClient(addr string) (*Client, error) {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	return WrapClient(c), nil
}

// WrapClient makes a Client of an open connection (a TLS one, say).
func WrapClient(c net.Conn) *Client { return &Client{c: c, r: bufio.NewReader(c)} }

// Close closes the connection.
func (b *Client) Close() { _ = b.c.Close() }

// Do sends req and returns the reply line (without CRLF) and the body that
// follows RESERVED, FOUND or OK; each reply within 30 s.
func (b *Client) Do(req string) (string, []byte, error) {
	if err := b.c.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		return "", nil, err
	}
	if _, err := io.WriteString(b.c, req); err != nil {
		return "", nil, err
	}
	r := ReadReply(b.r)
	if r.Note != "" {
		return "", nil, errors.New(r.String())
	}
	return r.Head, r.Body, nil
}

// Ask sends req until its reply is not INTERNAL_ERROR (what a command in
// flight gets when a cluster's leader changes, as it may on a loaded
// machine; the connection is carried on to the next leader), for at most
// 20 s, and fails the test on an error.
func (b *Client) Ask(t testing.TB, req string) (string, []byte) {
	t.Helper()
	for try := 0; ; try++ {
		line, body, err := b.Do(req)
		require.NoError(t, err)
		if line != "INTERNAL_ERROR" || try == 400 {
			return line, body
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// ShmDir returns a fresh directory for a server's journal, removed when
// the test ends: memory-backed (/dev/shm) where there is one, since a
// SIGKILL loses nothing written there and the disk's fsync latency would
// only slow the test down.
func ShmDir(t testing.TB) string {
	t.Helper()
	if dir, err := os.MkdirTemp("/dev/shm", "stalkd-test-"); err == nil {
		t.Cleanup(func() { _ = os.RemoveAll(dir) })
		return dir
	}
	return t.TempDir()
}
