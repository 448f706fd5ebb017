package enginetest

import (
	"testing"
	"time"
)

// PollTimeout bounds Eventually. It is generous on purpose: the machines
// that run the suite may be loaded, and a bound is a failure report, never
// an assertion on speed.
const PollTimeout = 20 * time.Second

// Eventually polls cond until it holds, and fails the test, naming what it
// waited for, if it does not within PollTimeout. It is the suite's one
// polling helper, for conditions another goroutine or process makes true
// (a server's log line, a follower catching up); a unit test drives time
// through an injected clock and has no need of it. cond runs on the
// caller's goroutine, first at once, then at intervals growing from 1 ms to
// 16 ms.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	poll(t, what, cond, PollTimeout)
}

func poll(t testing.TB, what string, cond func() bool, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	pause := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
			return
		}
		time.Sleep(pause)
		pause = min(2*pause, 16*time.Millisecond)
	}
}
