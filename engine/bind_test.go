package engine

import (
	"context"
	"net"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBindErrorsSayWhy: a port in use and an address that is not on this
// machine are reported in the reference's words, with the address.
func TestBindErrorsSayWhy(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	for _, tc := range []struct {
		addr  string
		errno syscall.Errno
		words string
	}{
		{busy.Addr().String(), syscall.EADDRINUSE, "Address already in use"},
		{"192.0.2.1:11300", syscall.EADDRNOTAVAIL, "Cannot assign requested address"}, // TEST-NET-1
	} {
		_, err := Start(context.Background(), Config{Addr: tc.addr, Logger: testLogger(t)})
		require.Error(t, err, tc.addr)
		assert.ErrorIs(t, err, tc.errno)
		assert.Equal(t, "engine: bind "+tc.addr+": "+tc.words, err.Error())
	}
}

// TestUnixSocketInUse: a second server on the Unix socket of a live one is
// refused, and the first keeps its socket; once the first has died without
// removing it, the stale socket is replaced.
func TestUnixSocketInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	first := startServer(t, func(c *Config) { c.Addr = "unix:" + path })
	_, err := Start(context.Background(), Config{Addr: "unix:" + path, Logger: testLogger(t)})
	require.ErrorContains(t, err, "another server is listening on this socket")
	dialRaw(t, "unix", path).Do("list-tube-used\r\n", "USING default\r\n")
	assert.Equal(t, path, first.Addr().String())

	// A process that died leaves its socket file behind.
	ln, err := net.Listen("unix", filepath.Join(filepath.Dir(path), "dead.sock"))
	require.NoError(t, err)
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	require.NoError(t, ln.Close())
	startServer(t, func(c *Config) { c.Addr = "unix:" + ln.Addr().String() })
	dialRaw(t, "unix", ln.Addr().String()).Do("list-tube-used\r\n", "USING default\r\n")
}
