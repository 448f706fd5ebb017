//go:build race

package wal

// raceEnabled: the race detector allocates on its own, so the allocation
// tests skip under it (make norace runs them).
const raceEnabled = true
