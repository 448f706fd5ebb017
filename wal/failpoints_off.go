//go:build !failpoints

package wal

// failpointStore is the seam of the robustness suite's disk faults: the
// store itself here; failpoints_on.go (-tags failpoints) wraps it.
func failpointStore(s store) store { return s }
