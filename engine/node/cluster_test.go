package node_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// TestClusterProcesses starts three stalkd processes on loopback, runs
// producers and consumers through every node, SIGKILLs the leader again and
// again, restarts it on its directory, and checks that every acknowledged
// put is there with its body (unless its delete was acknowledged), every
// acknowledged delete stays gone, and ids never repeat. It also times each
// failover: from the kill to the first put acknowledged through a survivor.
func TestClusterProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three real processes")
	}
	procs := enginetest.StartCluster(t, 3)
	tr := enginetest.NewTracker()
	kills := 6
	var failovers []time.Duration
	// One idle connection per node, using a tube of its own: a node's
	// connections survive the leader's death (carried to the next leader,
	// use replayed), except the dead node's own.
	keep := make([]*enginetest.Client, len(procs))
	keepUse := func(i int) {
		c, err := enginetest.DialClient(procs[i].Addr())
		require.NoError(t, err)
		line, _, err := c.Do(fmt.Sprintf("use keep%d\r\n", i))
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("USING keep%d", i), line)
		keep[i] = c
	}
	for i := range procs {
		keepUse(i)
	}
	carried := 0
	for round := range kills {
		leader := enginetest.WaitLeader(t, procs)
		tr.Verify(t, procs[(leader+1)%3].Addr(), round)
		for i, c := range keep {
			if c == nil {
				keepUse(i)
				continue
			}
			line, _, err := c.Do("list-tube-used\r\n")
			require.NoError(t, err, "node %s's connection was closed", procs[i].ID)
			require.Equal(t, fmt.Sprintf("USING keep%d", i), line)
			if round > 0 {
				carried++ // it lived through the last kill
			}
		}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for i, p := range procs {
			wg.Add(2)
			go func() { defer wg.Done(); enginetest.Produce(p.Addr(), tr, stop, fmt.Sprintf("r%d-n%d", round, i)) }()
			go func() { defer wg.Done(); enginetest.Consume(p.Addr(), tr, stop, uint64(round*10+i)) }()
		}
		time.Sleep(time.Duration(200+100*round) * time.Millisecond)
		killed := time.Now()
		procs[leader].Kill(t)
		keep[leader].Close()
		keep[leader] = nil
		failovers = append(failovers, firstPut(t, procs[(leader+1)%3].Addr(), tr, killed))
		close(stop)
		wg.Wait()
		procs[leader].Start(t, procs)
	}
	leader := enginetest.WaitLeader(t, procs)
	for i := range procs {
		tr.Verify(t, procs[i].Addr(), kills)
	}
	// stats-cluster through a follower: carried to the leader, its view.
	doc := statsClusterDoc(t, procs[(leader+1)%3].Addr())
	assert.Contains(t, doc, "\nstate: leader\n")
	assert.Contains(t, doc, "\nleader: "+procs[leader].ID+"\n")
	assert.Equal(t, 3, strings.Count(doc, "\n- id: "), doc)
	assert.Contains(t, doc, "\n  voter: true\n")
	puts, deletes := tr.Counts()
	slices.Sort(failovers)
	t.Logf("%d leader kills: %d acknowledged puts, %d acknowledged deletes, all accounted for on every node; "+
		"failover (kill to first acknowledged put) p50 %v, max %v; %d idle connections carried across a failover; leader now %s",
		kills, puts, deletes, failovers[len(failovers)/2], failovers[len(failovers)-1], carried, procs[leader].ID)
	require.Positive(t, puts)
	require.Positive(t, deletes)
}

// firstPut puts through addr until a put is acknowledged and returns the
// time since killed.
func firstPut(t *testing.T, addr string, tr *enginetest.Tracker, killed time.Time) time.Duration {
	deadline := killed.Add(60 * time.Second)
	for n := 0; time.Now().Before(deadline); n++ {
		c, err := enginetest.DialClient(addr)
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		body := fmt.Sprintf("failover-%d", n)
		line, _, err := c.Do(fmt.Sprintf("put 0 0 60 %d\r\n%s\r\n", len(body), body))
		c.Close()
		if err == nil && strings.HasPrefix(line, "INSERTED ") {
			id, err := strconv.ParseUint(strings.TrimPrefix(line, "INSERTED "), 10, 64)
			require.NoError(t, err)
			tr.Put(id, body)
			return time.Since(killed)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no put acknowledged within 60s of the leader's kill")
	return 0
}

// TestClusterOneNodeDrain: a cluster of one serves through its front, and
// SIGUSR1 turns drain mode on for the queue it leads.
func TestClusterOneNodeDrain(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real process")
	}
	procs := enginetest.StartCluster(t, 1)
	enginetest.WaitLeader(t, procs)
	c, err := enginetest.DialClient(procs[0].Addr())
	require.NoError(t, err)
	defer c.Close()
	line, _, err := c.Do("put 0 0 60 2\r\nhi\r\n")
	require.NoError(t, err)
	require.Equal(t, "INSERTED 1", line)
	require.NoError(t, procs[0].Signal(syscall.SIGUSR1))
	deadline := time.Now().Add(20 * time.Second)
	for {
		line, _, err = c.Do("put 0 0 60 2\r\nhi\r\n")
		require.NoError(t, err)
		if line == "DRAINING" || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	assert.Equal(t, "DRAINING", line)
	line, body, err := c.Do("peek 1\r\n")
	require.NoError(t, err)
	assert.Equal(t, "FOUND 1 2", line)
	assert.Equal(t, "hi", string(body))
}

// statsClusterDoc returns the stats-cluster document served at addr.
func statsClusterDoc(t *testing.T, addr string) string {
	r := enginetest.Dial(t, addr).Ask("stats-cluster\r\n")
	require.True(t, strings.HasPrefix(r.Head, "OK "), r.Head)
	return string(r.Body)
}

// TestClusterAuth: with --auth-token-file, a cluster member's clients must
// authenticate (the leader's engine checks the tokens; the front carries
// auth like any command).
func TestClusterAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real process")
	}
	const token = "cluster-token-0123456789"
	file := enginetest.WriteFile(t, "tokens", token+"\n")
	p := enginetest.NewMember(t, "n1", "--auth-token-file", file)
	procs := []*enginetest.Member{p}
	p.Start(t, procs)
	enginetest.WaitLeader(t, procs)
	c, err := enginetest.DialClient(p.Addr())
	require.NoError(t, err)
	defer c.Close()
	for _, x := range []struct{ req, want string }{
		{"put 0 0 60 2\r\nhi\r\n", "UNKNOWN_COMMAND"},
		{"auth " + token + "\r\n", "AUTHENTICATED"},
		{"put 0 0 60 2\r\nhi\r\n", "INSERTED 1"},
	} {
		line, _, err := c.Do(x.req)
		require.NoError(t, err)
		assert.Equal(t, x.want, line, x.req)
	}
}
