package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// TestSocketActivation: with LISTEN_FDS=1 and LISTEN_PID set to its own
// pid, stalkd serves the listening socket on descriptor 3 (TCP or Unix)
// instead of binding, and warns that -l and -p are ignored.
func TestSocketActivation(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			addr := "127.0.0.1:0"
			if network == "unix" {
				addr = filepath.Join(t.TempDir(), "act.sock")
			}
			ln, err := net.Listen(network, addr)
			require.NoError(t, err)
			f, err := ln.(interface{ File() (*os.File, error) }).File()
			require.NoError(t, err)
			addr = ln.Addr().String()
			if network == "unix" {
				ln.(*net.UnixListener).SetUnlinkOnClose(false)
			}

			// LISTEN_PID must name stalkd's own pid: the shell execs it.
			cmd := exec.Command("sh", "-c", `LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@"`,
				os.Args[0], "-p", "1", "-l", "192.0.2.1")
			cmd.Env = append(os.Environ(), "STALKD_TEST_MAIN=1")
			cmd.ExtraFiles = []*os.File{f}
			stderr, err := cmd.StderrPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			_ = f.Close()
			require.NoError(t, ln.Close()) // stalkd holds the only descriptor now

			var before []string
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				before = append(before, sc.Text())
				var line struct{ Message string }
				if json.Unmarshal(sc.Bytes(), &line) == nil && line.Message == "listening" {
					break
				}
			}
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			assert.Contains(t, strings.Join(before, "\n"), "-l and -p are ignored")

			enginetest.DialNetwork(t, network, addr).Do("put 0 0 10 1\r\nx\r\n", "INSERTED 1\r\n")
		})
	}
}

// TestSocketActivationRefusesNonListener: descriptor 3 that is not a
// listening socket is an error (exit 111), never served.
func TestSocketActivationRefusesNonListener(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	cmd := exec.Command("sh", "-c", `LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@"`, os.Args[0])
	cmd.Env = append(os.Environ(), "STALKD_TEST_MAIN=1")
	cmd.ExtraFiles = []*os.File{r}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, exitSocket, ee.ExitCode())
	assert.Contains(t, string(out), "socket activation: descriptor 3: not a socket")
}
