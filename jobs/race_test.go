//go:build race

package jobs_test

// raceEnabled: the race detector slows the single-goroutine model-based
// test tenfold without making it any more useful, so it runs shorter.
const raceEnabled = true
