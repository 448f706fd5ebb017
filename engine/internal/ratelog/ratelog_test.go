package ratelog

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestRateLog: a burst of events logs one line a second, and the line that
// gets through can say how many events it stands for.
func TestRateLog(t *testing.T) {
	now := time.Unix(1000, 0)
	r := Log{Now: func() time.Time { return now }}
	var lines []int64
	emit := func() { lines = append(lines, r.Take()) }
	for range 5000 { // 5000 events over 5 simulated seconds
		r.Event(emit)
		now = now.Add(time.Millisecond)
	}
	assert.Equal(t, []int64{1, 1000, 1000, 1000, 1000}, lines)
	r.Add(7)
	r.Maybe(emit)
	assert.Len(t, lines, 6, "a second has passed since the last line")
	assert.Equal(t, int64(999+7), lines[5], "the events since the last line")
}
