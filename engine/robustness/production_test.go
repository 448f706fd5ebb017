package robustness

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProductionBuildHasNoFailpoints: the failpoint hooks exist only in a
// build with -tags failpoints, and so does the planted bug's switch.
// Without the tag cmd/stalkd does not depend on package wal/failpoint and
// its binary has no symbol of it, nor of the planted bug; with the tag it
// has both (so the test can fail).
func TestProductionBuildHasNoFailpoints(t *testing.T) {
	t.Parallel() // beside TestRobustness: the short pass's time is its cluster's
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	deps := func(tags string) string {
		out, err := exec.Command(goTool, "list", "-deps", "-tags", tags, "github.com/stalkd/stalkd/cmd/stalkd").CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	const pkg = "github.com/stalkd/stalkd/wal/failpoint"
	assert.NotContains(t, deps(""), pkg, "a production build links the failpoint control")
	assert.Contains(t, deps("failpoints"), pkg, "the test build does not (the check above proves nothing)")

	symbols := func(bin string) string {
		out, err := exec.Command(goTool, "tool", "nm", bin).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	prod := symbols(stalkdBinary(t, ""))
	for _, s := range []string{"wal/failpoint.", "wal.fpFile", "raft.fpLogs"} {
		assert.NotContains(t, prod, s, "a production binary holds %s", s)
	}
	test := symbols(stalkdBinary(t, "failpoints"))
	assert.Contains(t, test, "wal/failpoint.Hit")
	assert.Contains(t, test, "engine.plantedBug", "the test build's switch for the planted bug")
	assert.False(t, strings.Contains(prod, "plantedBug"), "the planted bug is a constant, never a symbol")
}
