package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDaemonStaysThin pins the daemon's shape: package main keeps flags,
// privilege drop, signals and exit codes, and composes nothing itself
// (engine/node does), so no file of it grows past 250 lines, and no test
// of it starts a cluster (those live beside engine/node).
func TestDaemonStaysThin(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.LessOrEqual(t, bytes.Count(b, []byte("\n")), 250, "%s: split it, or move what it composes to engine/node", f)
		if strings.HasSuffix(f, "_test.go") && f != "shape_test.go" {
			assert.NotContains(t, string(b), `"--raft-peers"`, "%s starts a cluster: cluster tests live in engine/node", f)
			assert.False(t, strings.HasPrefix(f, "cluster"), "%s: cluster tests live in engine/node", f)
		}
	}
}
