package enginetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// fatalRecorder is a testing.TB whose Fatalf records instead of stopping.
type fatalRecorder struct {
	testing.TB
	fatal string
}

func (f *fatalRecorder) Helper() {}
func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.fatal = fmt.Sprintf(format, args...)
}

func TestEventuallyWaitsForTheCondition(t *testing.T) {
	n := 0
	Eventually(t, "the third call", func() bool { n++; return n == 3 })
	assert.Equal(t, 3, n, "polled until it held, and no more")
}

func TestEventuallyFailsNamingWhat(t *testing.T) {
	rec := &fatalRecorder{TB: t}
	calls := 0
	poll(rec, "the moon to turn blue", func() bool { calls++; return false }, 20*time.Millisecond)
	assert.Equal(t, "timed out after 20ms waiting for the moon to turn blue", rec.fatal)
	assert.Greater(t, calls, 1, "it polled more than once before giving up")
}
