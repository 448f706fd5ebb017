//go:build !failpoints

package wal

// failpointFile is the seam of the robustness suite's disk faults: the
// segment file itself here; failpoints_on.go (-tags failpoints) wraps it.
func failpointFile(f appendFile) appendFile { return f }
