//go:build !race

package enginetest

const RaceEnabled = false
