//go:build race

package jobs

const raceEnabledInternal = true
