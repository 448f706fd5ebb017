//go:build race

package engine

// raceEnabled: the race detector is on (it allocates, so allocation
// counts mean nothing).
const raceEnabled = true
