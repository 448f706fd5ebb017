//go:build failpoints

package engine

import "os"

// plantedBug is the robustness suite's planted bug, in a test build (-tags
// failpoints) only, and there only when the process starts with
// STALKD_PLANTED_BUG=ack-before-commit: put then answers INSERTED without
// waiting for the journal to commit the job. The suite runs such a cluster
// and must find the lost puts (engine/robustness, TestPlantedBugIsCaught):
// a suite that cannot fail proves nothing. Read once at start; never
// written after.
var plantedBug = os.Getenv("STALKD_PLANTED_BUG") == "ack-before-commit"
