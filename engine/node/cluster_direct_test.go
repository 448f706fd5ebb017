package node_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// TestClusterLeaderClientSurvivesStepDown: a client of the leader's own
// node is served by the leader's engine directly; when the leader is cut
// off and steps down, the engine hands the connection back to the node's
// client port, which carries it to the new leader with its tubes once the
// partition heals: the same connection goes on, and its next put is
// committed by the new leader.
func TestClusterLeaderClientSurvivesStepDown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three real processes")
	}
	fc := startFaultCluster(t, false)
	old, oldTerm := fc.leader(t)
	c := enginetest.Dial(t, fc.procs[old].Addr())
	c.Do("use foo\r\nwatch bar\r\n", "USING foo\r\nWATCHING 2\r\n")
	first := c.Ask("put 0 0 60 1\r\nx\r\n")
	require.Regexp(t, `^INSERTED \d+$`, first.Head)

	cut := time.Now()
	fc.mesh.Isolate(old)
	next, elected, stepDown := fc.waitFailover(t, old, oldTerm, cut)
	require.Eventually(t, func() bool { return fc.procs[old].Logged("adopted client connections handed back") },
		30*time.Second, 10*time.Millisecond, "the deposed leader's engine handed its client back")
	// Healed within the client port's wait for a leader (10 s): cut off,
	// the node cannot know the new leader, and a command would wait.
	fc.mesh.Heal()

	c.Do("list-tube-used\r\n", "USING foo\r\n")
	c.Do("list-tubes-watched\r\n", "OK 20\r\n---\n- default\n- bar\n\r\n")
	second := c.Ask("put 0 0 60 1\r\ny\r\n")
	require.Regexp(t, regexp.MustCompile(`^INSERTED \d+$`), second.Head, "committed by the new leader")
	onNew := enginetest.Dial(t, fc.procs[next].Addr())
	assert.Equal(t, "2", onNew.Stats("stats-tube foo")["current-jobs-ready"], "both puts are in the new leader's queue")
	t.Logf("leader %s cut off: new leader %s after %v, old stepped down after %v; the client's connection went on",
		fc.procs[old].ID, fc.procs[next].ID, elected, stepDown)
}
