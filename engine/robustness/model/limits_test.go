package model

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/stretchr/testify/assert"
)

// unknownDeletes: eight jobs reserved by one session, then a delete of
// each whose outcome is not known: 2^8 possible queues. With double, a
// second session then reserves job 1 too (a violation in every one).
func unknownDeletes(double bool) *hist {
	h := new(hist)
	for j := 1; j <= 8; j++ {
		at := int64(j * 10)
		h.op(1, at, at+5, putIn(j, 0), inserted(uint64(j)))
		h.op(2, 200+at, 200+at+5, rsv(0), reserved(uint64(j), j))
	}
	for j := 1; j <= 8; j++ {
		h.op(2, 400+int64(j*10), Never, Input{Kind: Delete, ID: uint64(j)}, unknown())
	}
	if double {
		h.op(3, 1000, 1010, rsv(0), reserved(1, 1))
	}
	return h
}

// TestLimitsGiveUnknownNotAPass: a search that passes a limit stops and
// says Unknown with the reason, never Ok; nor Illegal, since the steps it
// refused for the limit prove nothing. The same histories without the
// limit are decided (so the limit made the difference).
func TestLimitsGiveUnknownNotAPass(t *testing.T) {
	for _, double := range []bool{false, true} {
		h := unknownDeletes(double)
		full := Check(Config{}, h.ops, Limits{})
		want := porcupine.Ok
		if double {
			want = porcupine.Illegal
		}
		assert.Equal(t, want, full.Verdict, "double=%v without a tight limit", double)
		assert.Empty(t, full.Reason)
		assert.Equal(t, 256, full.States, "every subset of the deletes is a possible queue")

		for name, lim := range map[string]Limits{
			"states": {MaxStates: 16},
			"bytes":  {MaxBytes: 4 << 10},
		} {
			r := Check(Config{}, h.ops, lim)
			assert.Equal(t, porcupine.Unknown, r.Verdict, "double=%v, %s cap", double, name)
			assert.False(t, r.OK(), "an undecided check passed")
			assert.Contains(t, r.Reason, "over the cap", "double=%v, %s cap", double, name)
		}
	}
}
