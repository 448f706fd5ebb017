package fields

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// TestEveryReasonHasACode: a reason jobs declares without a format number
// here would be written as 0 and refused on reading: a new reason must add
// its row to reasonCodes (and the codes must be distinct).
func TestEveryReasonHasACode(t *testing.T) {
	seen := map[byte]jobs.DeadReason{}
	for _, r := range jobs.DeadReasons() {
		b, ok := ReasonCode(r)
		require.True(t, ok, "reason %s has no format number", r)
		assert.NotZero(t, b)
		_, dup := seen[b]
		assert.False(t, dup, "code %d twice", b)
		seen[b] = r
		back, ok := ReasonOf(b)
		require.True(t, ok)
		assert.Equal(t, r, back)
	}
	_, ok := ReasonOf(0)
	assert.False(t, ok)
	_, ok = ReasonOf(200)
	assert.False(t, ok)
}

// TestDeadRoundTrip: what AppendDead writes, Dead reads back (with and
// without a schedule's mark), DeadSize measures it, and a bad origin or
// reason is malformed.
func TestDeadRoundTrip(t *testing.T) {
	for _, rec := range []jobs.Record{
		{Dead: &jobs.DeadLetter{Origin: "emails", Reason: jobs.DeadReleased, At: 1_700_000_000_000_000_000}},
		{Sched: 3, SchedAt: -7, Dead: &jobs.DeadLetter{Origin: "r", Reason: jobs.DeadOverflow, At: -1}},
	} {
		b := AppendDead(nil, &rec)
		assert.Equal(t, len(b), DeadSize(&rec))
		d := Reader{B: b, Malformed: errBad}
		var got jobs.Record
		d.Dead(&got)
		require.NoError(t, d.Err)
		assert.Empty(t, d.B)
		assert.Equal(t, rec, got)
	}
	bad := func(origin string, reason byte) []byte {
		b := AppendDead(nil, &jobs.Record{Dead: &jobs.DeadLetter{Origin: origin, Reason: jobs.DeadTimedOut}})
		b[1+1+len(origin)] = reason
		return b
	}
	for name, b := range map[string][]byte{
		"bad origin":     bad("-x", 2),
		"empty origin":   bad("", 2),
		"unknown reason": bad("ok", 99),
		"zero reason":    bad("ok", 0),
		"short":          {0},
	} {
		d := Reader{B: b, Malformed: errBad}
		var got jobs.Record
		d.Dead(&got)
		assert.ErrorIs(t, d.Err, errBad, name)
		assert.Nil(t, got.Dead, name)
	}
}
