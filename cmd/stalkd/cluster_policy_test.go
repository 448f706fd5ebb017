package main

import (
	"encoding/json"
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
// follower's admin API is forwarded to the leader and in force there (a
// bad one comes back naming the field); both policies work for clients of
// a follower (their connections are carried to the leader): QUEUE_FULL
// past max_ready, a job dead-lettered after max_reserves; and both
// survive the leader's death.
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

	// A policy PUT to a follower is forwarded to the leader, and answered
	// once committed: 200 and the policy, in force on the leader.
	webhooks := jobs.Policy{MaxReady: 1}
	var set jobs.Policy
	require.Equal(t, http.StatusOK, putThrough(t, follower, "webhooks", webhooks, &set))
	assert.Equal(t, webhooks, set)
	require.Eventually(t, func() bool { // the leader may have moved meanwhile: ask whoever leads
		var got jobs.Policy
		l := waitLeader(t, procs)
		return adminCall(t, http.MethodGet, procs[l].admin(t)+"/v1/tubes/webhooks/policy", "", nil, &got) == http.StatusOK &&
			assert.ObjectsAreEqual(webhooks, got)
	}, 30*time.Second, 50*time.Millisecond, "the policy set through the follower is the leader's")
	// A policy only the leader can refuse (its dead-letter tube is itself):
	// the follower's client gets the leader's 400 naming the field.
	var bad struct {
		Error struct{ Code, Field string }
	}
	require.Equal(t, http.StatusBadRequest,
		putThrough(t, follower, "webhooks", jobs.Policy{MaxReserves: 1, DeadLetter: "webhooks"}, &bad))
	assert.Equal(t, "bad_policy", bad.Error.Code)
	assert.Equal(t, "dead_letter", bad.Error.Field)

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

// putThrough PUTs a policy to p's admin API, again while p knows no
// leader yet or leadership moved meanwhile (421, 503); it returns the
// status of the first other answer, decoded into out.
func putThrough(t *testing.T, p *clusterProc, tube string, pol jobs.Policy, out any) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var raw json.RawMessage
		code := adminCall(t, http.MethodPut, p.admin(t)+"/v1/tubes/"+tube+"/policy", "", pol, &raw)
		if code != http.StatusMisdirectedRequest && code != http.StatusServiceUnavailable {
			require.NoError(t, json.Unmarshal(raw, out))
			return code
		}
		require.True(t, time.Now().Before(deadline), "PUT policy of %s: no leader took it in 30s: %s", tube, raw)
		time.Sleep(50 * time.Millisecond)
	}
}
