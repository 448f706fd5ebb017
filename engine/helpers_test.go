package engine

import (
	"context"
	"net"
	"strconv"
	"testing"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// ioTimeout bounds every wait on a socket: generous, for a loaded CI box.
const ioTimeout = enginetest.Timeout

// testLogger logs to the test's output.
func testLogger(t testing.TB) zerolog.Logger { return enginetest.Logger(t) }

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

// rawConn is the kit's raw protocol client.
type rawConn = enginetest.Conn

// dialRaw opens a raw connection on network ("tcp", "unix").
func dialRaw(t testing.TB, network, addr string) *rawConn {
	t.Helper()
	return enginetest.DialNetwork(t, network, addr)
}

// dial opens a raw connection to a TCP server.
func dial(t testing.TB, s *Server) *rawConn { t.Helper(); return enginetest.Dial(t, addrOf(t, s)) }
