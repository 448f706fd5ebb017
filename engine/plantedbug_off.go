//go:build !failpoints

package engine

// plantedBug is the robustness suite's planted bug (plantedbug_on.go):
// off in every real build, and the compiler drops the code it guards.
const plantedBug = false
