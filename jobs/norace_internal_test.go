//go:build !race

package jobs

const raceEnabledInternal = false
