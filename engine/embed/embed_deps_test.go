package embed_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEmbedDoesNotLinkTheServer: a program that embeds a queue links
// neither the protocol server (package engine) nor its network framework
// (gnet): serving the queue is package engine/node's, which such a program
// imports only if it serves. The architecture table forbids the direct
// import; this checks every path, through any package embed imports.
func TestEmbedDoesNotLinkTheServer(t *testing.T) {
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := exec.Command(gotool, "list", "-deps", "github.com/stalkd/stalkd/engine/embed").CombinedOutput()
	require.NoError(t, err, "%s", out)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/stalkd/stalkd/jobs", "the list is embed's dependencies")
	for _, dep := range deps {
		for _, banned := range []string{"github.com/panjf2000/gnet", "github.com/stalkd/stalkd/engine/node"} {
			require.False(t, strings.HasPrefix(dep, banned), "embed links %s", dep)
		}
		require.NotEqual(t, "github.com/stalkd/stalkd/engine", dep, "embed links the protocol server")
	}
}
