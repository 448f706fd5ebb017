package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	builtOnce sync.Once
	builtPath string
	builtErr  error
	builtDir  string
)

// builtStalkd builds stalkd without the race detector (once per test
// process) and starts it: the memory and CPU figures of a race-instrumented
// test binary say nothing about the real one.
func builtStalkd(t *testing.T, args ...string) (*exec.Cmd, io.Reader) {
	builtOnce.Do(func() {
		builtDir, builtErr = os.MkdirTemp("", "stalkd-bin")
		if builtErr != nil {
			return
		}
		builtPath = filepath.Join(builtDir, "stalkd")
		out, err := exec.Command("go", "build", "-o", builtPath, ".").CombinedOutput()
		if err != nil {
			builtErr = &buildError{err, string(out)}
		}
	})
	if builtErr != nil {
		t.Skipf("cannot build stalkd: %v", builtErr)
	}
	cmd := exec.Command(builtPath, args...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, stderr
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }
