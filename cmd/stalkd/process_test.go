package main

import (
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// The test binary doubles as stalkd: with STALKD_TEST_MAIN set it runs
// realMain on its arguments, so exit codes and signals are tested on a real
// process.
func TestMain(m *testing.M) {
	if os.Getenv("STALKD_TEST_MAIN") == "1" {
		os.Exit(realMain(append([]string{"stalkd"}, os.Args[1:]...), os.Stdout, os.Stderr))
	}
	code := m.Run()
	enginetest.RemoveBuild()
	os.Exit(code)
}

const waitLong = enginetest.Timeout

// selfCmd is the test binary run as stalkd with args.
func selfCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "STALKD_TEST_MAIN=1")
	return cmd
}

// startSelf starts the command as a child process and returns once it listens.
func startSelf(t *testing.T, args ...string) *enginetest.Proc {
	return enginetest.StartCommand(t, selfCmd(args...))
}

// stalkd starts the command as a child process, for the tests of how it
// fails or of its whole log.
func stalkd(t *testing.T, args ...string) (*exec.Cmd, io.Reader) {
	cmd := selfCmd(args...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, stderr
}

// exitCode waits for the child and returns its exit status.
func exitCode(t *testing.T, cmd *exec.Cmd) int {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		require.NoError(t, err)
		return 0
	case <-time.After(waitLong):
		t.Fatal("stalkd did not exit")
		return -1
	}
}

func TestProcessSignals(t *testing.T) {
	p := startSelf(t, "-l", "127.0.0.1", "-p", "0", "-V")
	c := enginetest.Dial(t, p.Addr())
	c.Do("put 0 0 10 1\r\nx\r\n", "INSERTED 1\r\n")

	require.NoError(t, p.Signal(syscall.SIGUSR1))
	require.Eventually(t, func() bool {
		_, _ = io.WriteString(c.NetConn(), "put 0 0 10 1\r\ny\r\n")
		line, err := c.Reader().ReadString('\n')
		return err == nil && line == "DRAINING\r\n"
	}, waitLong, time.Millisecond, "SIGUSR1 starts drain mode")

	assert.Equal(t, 0, p.Stop(), "SIGTERM stops gracefully")
	_, err := c.Reader().ReadByte()
	assert.Error(t, err, "connections are closed")
}

func TestProcessExitCodes(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	_, port, _ := net.SplitHostPort(busy.Addr().String())
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-l", "127.0.0.1", "-p", port}, exitSocket},
		{[]string{"-l", "127.0.0.1", "-p", "notaport"}, exitSocket},
		{[]string{"-l", "127.0.0.1", "-p", "0", "-u", "no-such-user-stalkd"}, exitUnknownUser},
		{[]string{"-l", "127.0.0.1", "-p", "0", "-b", "/no/such/dir"}, exitWALDir},
		{[]string{"-x"}, exitUsage},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			cmd, stderr := stalkd(t, tc.args...)
			go func() { _, _ = io.Copy(io.Discard, stderr) }()
			assert.Equal(t, tc.code, exitCode(t, cmd))
		})
	}
}
