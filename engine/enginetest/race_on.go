//go:build race

package enginetest

// RaceEnabled: the race detector is on (it allocates, so allocation
// counts mean nothing).
const RaceEnabled = true
