package main

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// TestClusterPolicies runs three members with --admin and the same
// --policies file: the leader applies the file; a policy PUT to a
// follower's admin API is refused with 421 naming the leader, and taken
// by the leader; both policies work for clients of a follower (their
// connections are carried to the leader): QUEUE_FULL past max_ready, a
// job dead-lettered after max_reserves; and both survive the leader's
// death.
func TestClusterPolicies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three real processes")
	}
	file := writePolicies(t, "policies.yaml", "emails:\n  max_reserves: 2\n  dead_letter: emails-dead\n")
	var procs []*clusterProc
	for i := range 3 {
		procs = append(procs, &clusterProc{id: fmt.Sprintf("n%d", i+1), raftAddr: freeAddr(t), dir: crashDir(t),
			extra: []string{"--admin", "127.0.0.1:0", "--policies", file}})
	}
	for _, p := range procs {
		p.start(t, procs)
	}
	leader := waitLeader(t, procs)
	follower := procs[(leader+1)%3]

	webhooks := jobs.Policy{MaxReady: 1}
	var nl struct {
		Error struct{ Code, Leader string }
	}
	deadline := time.Now().Add(30 * time.Second)
	for { // the follower may not know the leader yet
		code := adminCall(t, http.MethodPut, follower.admin(t)+"/v1/tubes/webhooks/policy", "", webhooks, &nl)
		require.Equal(t, http.StatusMisdirectedRequest, code)
		require.Equal(t, "not_leader", nl.Error.Code)
		if nl.Error.Leader != "" {
			break
		}
		require.True(t, time.Now().Before(deadline), "the 421 names no leader after 30s")
		time.Sleep(20 * time.Millisecond)
	}
	setOnLeader(t, procs, "webhooks", webhooks)

	// A client of the follower: its connection is carried to the leader.
	c, err := beanstalk.Dial("tcp", follower.addr)
	require.NoError(t, err)
	defer c.Close()
	hooks := &beanstalk.Tube{Conn: c, Name: "webhooks"}
	_, err = hooks.Put([]byte("one"), 1, 0, time.Minute)
	require.NoError(t, err)
	_, err = hooks.Put([]byte("two"), 1, 0, time.Minute)
	require.Error(t, err, "max_ready 1")
	assert.Contains(t, err.Error(), "QUEUE_FULL")

	id, err := (&beanstalk.Tube{Conn: c, Name: "emails"}).Put([]byte("mail"), 1, 0, time.Minute)
	require.NoError(t, err)
	work := beanstalk.NewTubeSet(c, "emails")
	for range 2 {
		rid, _, err := work.Reserve(waitLong)
		require.NoError(t, err)
		require.NoError(t, c.Release(rid, 1, 0))
	}
	rid, _, err := beanstalk.NewTubeSet(c, "emails-dead").Reserve(waitLong)
	require.NoError(t, err)
	assert.Equal(t, id, rid, "dead-lettered after 2 reserves, by the file's policy")
	c.Close()

	procs[leader].kill(t)
	next := waitLeader(t, procs)
	require.NotEqual(t, leader, next)
	want := map[string]jobs.Policy{"emails": {MaxReserves: 2, DeadLetter: "emails-dead"}, "webhooks": webhooks}
	require.Eventually(t, func() bool {
		var got struct{ Policies map[string]jobs.Policy }
		if adminCall(t, http.MethodGet, procs[next].admin(t)+"/v1/policies", "", nil, &got) != http.StatusOK {
			return false
		}
		return assert.ObjectsAreEqual(want, got.Policies)
	}, 30*time.Second, 50*time.Millisecond, "the new leader holds both policies")
}

// setOnLeader PUTs a policy to the current leader's admin API, again to
// the next leader when leadership moved meanwhile.
func setOnLeader(t *testing.T, procs []*clusterProc, tube string, p jobs.Policy) {
	t.Helper()
	for range 20 {
		l := waitLeader(t, procs)
		switch code := adminCall(t, http.MethodPut, procs[l].admin(t)+"/v1/tubes/"+tube+"/policy", "", p, nil); code {
		case http.StatusOK:
			return
		case http.StatusMisdirectedRequest, http.StatusServiceUnavailable:
			time.Sleep(100 * time.Millisecond)
		default:
			t.Fatalf("PUT policy of %s: status %d", tube, code)
		}
	}
	t.Fatalf("PUT policy of %s: no leader took it", tube)
}
