package difftest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of the random generator alone (no server): a seed replays, and the
// rules that keep conversations away from timing and hangs hold.

// genSteps plays n steps of seed's generator, feeding it what a server that
// answers nothing would give (so every reserve waits).
func genSteps(seed int64, n int) []rstep {
	g := newGen(seed, 65535)
	var out []rstep
	for range n {
		st := g.next()
		out = append(out, st)
		g.observe(st, map[string][]reply{})
	}
	return out
}

func TestGenReplaysASeed(t *testing.T) {
	assert.True(t, reflect.DeepEqual(genSteps(7, 300), genSteps(7, 300)))
	assert.False(t, reflect.DeepEqual(genSteps(7, 300), genSteps(8, 300)))
}

func TestGenKeepsItsRules(t *testing.T) {
	for seed := range int64(200) {
		waiting := map[string]bool{}
		for i, st := range genSteps(seed, 200) {
			if st.hangup || (st.shut && len(st.parts) == 0) {
				delete(waiting, st.conn)
				continue
			}
			require.False(t, waiting[st.conn], "seed %d step %d: bytes sent to a waiting connection %s", seed, i, st.conn)
			sent := st.sent()
			if strings.Contains(sent, "quit") { // the generator writes quit only as a command
				assert.True(t, strings.HasSuffix(sent, "quit\r\n") || strings.HasSuffix(sent, "quit \r\n") ||
					strings.HasSuffix(sent, "quitxyz\r\n"), "seed %d step %d: quit is not last in %q", seed, i, sent)
			}
			if strings.Contains(sent, "reserve\r\n") || strings.HasPrefix(sent, "reserve-with-timeout") {
				require.True(t, st.blocking, "seed %d step %d: a reserve in a batch: %q", seed, i, sent)
			}
			if st.blocking {
				require.Len(t, st.parts, 1)
				require.Equal(t, 1, strings.Count(sent, "\r\n"), "seed %d step %d: a blocking reserve not alone: %q", seed, i, sent)
				waiting[st.conn] = true
			}
			if st.shut {
				delete(waiting, st.conn)
			}
		}
	}
}
