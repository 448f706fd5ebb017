package engine

import (
	"bufio"
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"
)

// ioTimeout bounds every wait on a socket: generous, for a loaded CI box.
const ioTimeout = 15 * time.Second

// testLogger logs to the test's output.
func testLogger(t testing.TB) zerolog.Logger {
	return zerolog.New(zerolog.NewTestWriter(t)).Level(zerolog.DebugLevel).With().Timestamp().Logger()
}

// startServer starts an in-process server on 127.0.0.1:0, serving a fresh
// queue, and stops it when the test ends. mutate may adjust the Config first.
func startServer(t testing.TB, mutate ...func(*Config)) *Server {
	t.Helper()
	return startBackend(t, Backend{}, mutate...)
}

// startBackend is startServer serving b.
func startBackend(t testing.TB, b Backend, mutate ...func(*Config)) *Server {
	t.Helper()
	cfg := Config{Addr: "127.0.0.1:0", Logger: testLogger(t), EventLoops: 2}
	for _, m := range mutate {
		m(&cfg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	s, err := Listen(ctx, cfg)
	require.NoError(t, err)
	if err := s.Serve(b); err != nil {
		_ = s.Stop(context.Background())
		require.NoError(t, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
		defer cancel()
		require.NoError(t, s.Stop(ctx))
	})
	return s
}

// port returns the server's TCP port.
func port(t testing.TB, s *Server) int {
	a, ok := s.Addr().(*net.TCPAddr)
	require.True(t, ok, "address %v", s.Addr())
	return a.Port
}

// addrOf returns "127.0.0.1:<port>" of a TCP server.
func addrOf(t testing.TB, s *Server) string {
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port(t, s)))
}

// rawConn is a raw protocol client: it sends bytes and expects exact bytes.
type rawConn struct {
	t testing.TB
	c net.Conn
	r *bufio.Reader
}

func dialRaw(t testing.TB, network, addr string) *rawConn {
	t.Helper()
	c, err := net.DialTimeout(network, addr, ioTimeout)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return &rawConn{t: t, c: c, r: bufio.NewReader(c)}
}

// dial opens a raw connection to a TCP server.
func dial(t testing.TB, s *Server) *rawConn { return dialRaw(t, "tcp", addrOf(t, s)) }

func (rc *rawConn) send(s string) {
	rc.t.Helper()
	require.NoError(rc.t, rc.c.SetWriteDeadline(time.Now().Add(ioTimeout)))
	_, err := io.WriteString(rc.c, s)
	require.NoError(rc.t, err)
}

// expect reads exactly len(want) bytes and compares them with want.
func (rc *rawConn) expect(want string) {
	rc.t.Helper()
	require.NoError(rc.t, rc.c.SetReadDeadline(time.Now().Add(ioTimeout)))
	got := make([]byte, len(want))
	n, err := io.ReadFull(rc.r, got)
	require.NoError(rc.t, err, "read %d of %d bytes: %q, want %q", n, len(want), got[:n], want)
	require.Equal(rc.t, strconv.Quote(want), strconv.Quote(string(got)))
}

// do sends a request and expects an exact reply.
func (rc *rawConn) do(send, want string) {
	rc.t.Helper()
	rc.send(send)
	rc.expect(want)
}

// line reads one reply line, without its CRLF.
func (rc *rawConn) line() string {
	rc.t.Helper()
	require.NoError(rc.t, rc.c.SetReadDeadline(time.Now().Add(ioTimeout)))
	s, err := rc.r.ReadString('\n')
	require.NoError(rc.t, err)
	require.True(rc.t, strings.HasSuffix(s, "\r\n"), "line %q", s)
	return strings.TrimSuffix(s, "\r\n")
}

// expectEOF waits for the server to close the connection.
func (rc *rawConn) expectEOF() {
	rc.t.Helper()
	require.NoError(rc.t, rc.c.SetReadDeadline(time.Now().Add(ioTimeout)))
	b, err := rc.r.ReadByte()
	require.ErrorIs(rc.t, err, io.EOF, "got byte %q", b)
}

// closeWrite half-closes the connection.
func (rc *rawConn) closeWrite() {
	rc.t.Helper()
	cw, ok := rc.c.(interface{ CloseWrite() error })
	require.True(rc.t, ok)
	require.NoError(rc.t, cw.CloseWrite())
}

// closeWriteErr half-closes the connection and returns the error.
func (rc *rawConn) closeWriteErr() error {
	cw, ok := rc.c.(interface{ CloseWrite() error })
	if !ok {
		return io.ErrClosedPipe
	}
	_ = rc.c.SetReadDeadline(time.Now().Add(ioTimeout))
	return cw.CloseWrite()
}
