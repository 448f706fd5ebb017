package codec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refOrder is the order the reference tries prefixes in (prot.c's strncmp chain).
var refOrder = []string{
	"put ", "peek ", "peek-ready", "peek-delayed", "peek-buried", "reserve-with-timeout ",
	"reserve-job ", "reserve", "delete ", "release ", "bury ", "kick ", "kick-job ", "touch ",
	"stats-job ", "stats-tube ", "stats", "use ", "watch ", "ignore ", "list-tubes-watched",
	"list-tube-used", "list-tubes", "quit", "pause-tube",
}

// Every command is declared once, matched by its own prefix, documented; the longest-first
// matching order picks what the reference's order picks for every pair that can collide.
func TestCommandTable(t *testing.T) {
	specs := Commands()
	require.Len(t, specs, NumOps-2, "every op but OpNone and the put body is a command")
	seenPrefix := map[string]bool{}
	for _, s := range specs {
		assert.NotEmpty(t, s.Usage, "%v is documented", s.Op)
		cmd, _, ok := NewDecoder(100).Decode([]byte(s.Sample + "\r\n"))
		if assert.True(t, ok, "%v: sample %q is a whole line", s.Op, s.Sample) {
			assert.NoError(t, cmd.Err, "%v: sample %q parses", s.Op, s.Sample)
			assert.Equal(t, s.Op, cmd.Op, "%v: sample %q is a line of its own command", s.Op, s.Sample)
		}
		assert.False(t, seenPrefix[s.Prefix], "%q declared twice", s.Prefix)
		seenPrefix[s.Prefix] = true
		v := lookup([]byte(s.Prefix + "x"))
		require.NotNil(t, v, "%q matches", s.Prefix)
		assert.Equal(t, s.Op, v.op, "%q is matched as itself", s.Prefix)
		assert.Equal(t, s.Op, s.Op.Spec().Op)
		assert.Equal(t, s.Ours, !contains(refOrder, s.Prefix), "%q: Ours marks exactly the commands the reference lacks", s.Prefix)
	}
	for _, a := range refOrder {
		for _, b := range refOrder {
			if a != b && strings.HasPrefix(b, a) {
				assert.Less(t, indexOf(refOrder, b), indexOf(refOrder, a), "the reference tries %q before %q", b, a)
				assert.Equal(t, b, lookup([]byte(b)).prefix, "%q wins over %q here too", b, a)
			}
		}
	}
}

// The reported keys come out in the stats document's order.
func TestCommandTableStatsKeys(t *testing.T) {
	var keys []string
	for _, s := range Commands() {
		if s.Stat != "" {
			require.True(t, s.Counted, "%v is reported, so counted", s.Op)
			keys = append(keys, s.Stat)
		}
	}
	assert.Equal(t, []string{"cmd-put", "cmd-peek", "cmd-peek-ready", "cmd-peek-delayed", "cmd-peek-buried",
		"cmd-reserve", "cmd-reserve-with-timeout", "cmd-delete", "cmd-release", "cmd-use", "cmd-watch",
		"cmd-ignore", "cmd-bury", "cmd-kick", "cmd-touch", "cmd-stats", "cmd-stats-job", "cmd-stats-tube",
		"cmd-list-tubes", "cmd-list-tube-used", "cmd-list-tubes-watched", "cmd-pause-tube"}, keys)
	assert.False(t, OpQuit.Spec().Counted, "quit is not counted")
	assert.True(t, OpReserveJob.Spec().Counted && OpReserveJob.Spec().Stat == "", "reserve-job: counted, never reported")
}

func contains(list []string, s string) bool { return indexOf(list, s) >= 0 }

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
