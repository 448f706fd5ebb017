package engine

import (
	"context"
	"net"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeGivenListener: a listener opened elsewhere (socket activation)
// is served as it is, TCP or Unix, and closed by Stop.
func TestServeGivenListener(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := startServer(t, func(c *Config) { c.Listener, c.Addr = tcp, "ignored:1" })
	assert.Equal(t, tcp.Addr(), s.Addr())
	dialRaw(t, "tcp", tcp.Addr().String()).Do("put 0 0 10 1\r\nx\r\n", "INSERTED 1\r\n")

	path := filepath.Join(t.TempDir(), "s.sock")
	unixLn, err := net.Listen("unix", path)
	require.NoError(t, err)
	u, err := Start(context.Background(), Config{Listener: unixLn, Logger: testLogger(t)})
	require.NoError(t, err)
	dialRaw(t, "unix", path).Do("list-tube-used\r\n", "USING default\r\n")
	require.NoError(t, u.Stop(context.Background()))
	_, err = net.Dial("unix", path)
	assert.Error(t, err, "Stop closed the listener")
}
