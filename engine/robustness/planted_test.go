package robustness

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPlantedBugIsCaught: a stalkd with the planted bug on (the suite's
// failpoints build, started with STALKD_PLANTED_BUG=ack-before-commit: put
// answers INSERTED before the job is committed, engine/plantedbug_on.go)
// must fail the suite within the short pass. A leader cut off from its followers
// keeps acknowledging puts that no majority stores; the new leader never
// had them, and the model finds the acknowledged jobs missing: the
// check must say not linearizable.
func TestPlantedBugIsCaught(t *testing.T) {
	t.Parallel() // beside TestRobustness: the short pass's time is its cluster's
	if testing.Short() {
		t.Skip("runs real stalkd processes under faults")
	}
	bin := stalkdBinary(t, "failpoints") // the suite's own build: no second link
	sys, err := startCluster(t, t.TempDir(), bin, "STALKD_PLANTED_BUG=ack-before-commit")
	require.NoError(t, err)
	out := t.TempDir()
	cfg := suiteConfig(t)
	for try := range 4 {
		fl := faults[slices.IndexFunc(faults, func(f fault) bool { return f.name == "partition-leader" })]
		o := runHistory(t, sys, fl, cfg.seed+uint64(try), try, shortPlan, out)
		t.Logf("try %d: %d ops, %s in %v, violations %q", try, o.Ops, o.Verdict, o.CheckTook, o.Violations)
		if o.Verdict == "illegal" {
			return // caught by the checker (an undecided check or a fault's own complaint would not do)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("four histories with the leader cut off did not catch acknowledgements sent before the commit")
}
