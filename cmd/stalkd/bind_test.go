package main

import (
	"io"
	"net"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// TestBindErrorMessages: stalkd exits 111 and says why, with the address,
// in the reference's words.
func TestBindErrorMessages(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	_, port, _ := net.SplitHostPort(busy.Addr().String())
	for _, tc := range []struct{ host, port, want string }{
		{"127.0.0.1", port, "bind 127.0.0.1:" + port + ": Address already in use"},
		{"192.0.2.1", "11300", "bind 192.0.2.1:11300: Cannot assign requested address"},
	} {
		cmd, stderr := stalkd(t, "-l", tc.host, "-p", tc.port)
		out, _ := io.ReadAll(stderr)
		assert.Equal(t, exitSocket, exitCode(t, cmd))
		assert.Contains(t, string(out), tc.want)
	}
}

// TestSecondServerOnUnixSocket: a second stalkd on the socket of a live one
// exits 111 and leaves the first reachable.
func TestSecondServerOnUnixSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.sock")
	startSelf(t, "-l", "unix:"+path)
	second, stderr2 := stalkd(t, "-l", "unix:"+path)
	out, _ := io.ReadAll(stderr2)
	assert.Equal(t, exitSocket, exitCode(t, second))
	assert.Contains(t, string(out), "another server is listening on this socket")
	enginetest.DialNetwork(t, "unix", path).Do("list-tube-used\r\n", "USING default\r\n")
}
