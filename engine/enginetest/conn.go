package enginetest

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Timeout bounds every wait on a socket or a process: generous, for a loaded
// 2-core CI box; a reply that is on time costs nothing.
const Timeout = 15 * time.Second

// Conn is a raw protocol client: it sends bytes and expects exact bytes,
// failing the test on any error. It is used by one goroutine.
type Conn struct {
	t testing.TB
	c net.Conn
	r *bufio.Reader
}

// Dial opens a raw connection to a TCP server, closed when the test ends.
func Dial(t testing.TB, addr string) *Conn { t.Helper(); return DialNetwork(t, "tcp", addr) }

// DialNetwork is Dial on another network ("unix").
func DialNetwork(t testing.TB, network, addr string) *Conn {
	t.Helper()
	c, err := net.DialTimeout(network, addr, Timeout)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return Wrap(t, c)
}

// Wrap makes a raw client of an open connection (a TLS one, say).
func Wrap(t testing.TB, c net.Conn) *Conn { return &Conn{t: t, c: c, r: bufio.NewReader(c)} }

// NetConn is the underlying connection.
func (rc *Conn) NetConn() net.Conn { return rc.c }

// Reader is the buffered reader over the connection: read through it, not
// the connection, once the Conn has read.
func (rc *Conn) Reader() *bufio.Reader { return rc.r }

// Send writes s.
func (rc *Conn) Send(s string) {
	rc.t.Helper()
	require.NoError(rc.t, rc.c.SetWriteDeadline(time.Now().Add(Timeout)))
	_, err := io.WriteString(rc.c, s)
	require.NoError(rc.t, err)
}

// Expect reads exactly len(want) bytes and compares them with want.
func (rc *Conn) Expect(want string) {
	rc.t.Helper()
	require.NoError(rc.t, rc.c.SetReadDeadline(time.Now().Add(Timeout)))
	got := make([]byte, len(want))
	n, err := io.ReadFull(rc.r, got)
	require.NoError(rc.t, err, "read %d of %d bytes: %q, want %q", n, len(want), got[:n], want)
	require.Equal(rc.t, strconv.Quote(want), strconv.Quote(string(got)))
}

// Do sends a request and expects an exact reply.
func (rc *Conn) Do(send, want string) {
	rc.t.Helper()
	rc.Send(send)
	rc.Expect(want)
}

// Line reads one reply line, without its CRLF.
func (rc *Conn) Line() string {
	rc.t.Helper()
	require.NoError(rc.t, rc.c.SetReadDeadline(time.Now().Add(Timeout)))
	s, err := rc.r.ReadString('\n')
	require.NoError(rc.t, err)
	require.True(rc.t, strings.HasSuffix(s, "\r\n"), "line %q", s)
	return strings.TrimSuffix(s, "\r\n")
}

// Reply reads one complete reply, its body included (OK, RESERVED, FOUND),
// and fails the test if what arrives is not one.
func (rc *Conn) Reply() Reply {
	rc.t.Helper()
	require.NoError(rc.t, rc.c.SetReadDeadline(time.Now().Add(Timeout)))
	r := ReadReply(rc.r)
	require.Empty(rc.t, r.Note, "reply %s", r)
	return r
}

// Ask sends a request and returns its reply.
func (rc *Conn) Ask(send string) Reply {
	rc.t.Helper()
	rc.Send(send)
	return rc.Reply()
}

// Stats sends cmd ("stats", "stats-tube t", "stats-job 1"; "stats" if empty)
// and returns its YAML document as a map of raw values.
func (rc *Conn) Stats(cmd ...string) map[string]string {
	rc.t.Helper()
	req := "stats"
	if len(cmd) > 0 {
		req = cmd[0]
	}
	r := rc.Ask(req + "\r\n")
	require.True(rc.t, r.HasBody, "%s: %s", req, r)
	m, ok := ParseYAML(r.Body)
	require.True(rc.t, ok, "%s: not a YAML mapping: %q", req, r.Body)
	return m
}

// Stat returns one integer of the stats document of cmd.
func (rc *Conn) Stat(key string, cmd ...string) int64 {
	rc.t.Helper()
	v, ok := rc.Stats(cmd...)[key]
	require.True(rc.t, ok, "no %s in the stats", key)
	n, err := strconv.ParseInt(v, 10, 64)
	require.NoError(rc.t, err, "%s: %q", key, v)
	return n
}

// ExpectEOF waits for the server to close the connection.
func (rc *Conn) ExpectEOF() {
	rc.t.Helper()
	require.NoError(rc.t, rc.c.SetReadDeadline(time.Now().Add(Timeout)))
	b, err := rc.r.ReadByte()
	require.ErrorIs(rc.t, err, io.EOF, "got byte %q", b)
}

// CloseWrite half-closes the connection: the server reads EOF.
func (rc *Conn) CloseWrite() {
	rc.t.Helper()
	require.NoError(rc.t, rc.CloseWriteErr())
}

// CloseWriteErr half-closes the connection and returns the error, for tests
// of a transport that may refuse.
func (rc *Conn) CloseWriteErr() error {
	cw, ok := rc.c.(interface{ CloseWrite() error })
	if !ok {
		return io.ErrClosedPipe
	}
	_ = rc.c.SetReadDeadline(time.Now().Add(Timeout))
	return cw.CloseWrite()
}

// Hangup closes the connection from the client side.
func (rc *Conn) Hangup() { _ = rc.c.Close() }

// ExpectClosed waits for the server to drop the connection: EOF, or a reset
// because it left input unread. Bytes before the end are skipped.
func (rc *Conn) ExpectClosed() {
	rc.t.Helper()
	require.NoError(rc.t, rc.c.SetReadDeadline(time.Now().Add(Timeout)))
	_, err := io.Copy(io.Discard, rc.r)
	if err != nil {
		require.ErrorIs(rc.t, err, syscall.ECONNRESET, "unexpected error %v", err)
	}
}
