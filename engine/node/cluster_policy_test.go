package node_test

import (
	"fmt"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
)

// TestClusterPolicies runs three members with --admin and the same
// --policies file: the leader applies the file; the admin API refuses
// policy changes (409 managed_by_file) on every node; the policies work
// for clients of a follower (their connections are carried to the
// leader): OUT_OF_MEMORY (go-beanstalk's ErrOOM) past max_ready, a job
// dead-lettered after max_reserves; SIGHUP on a follower re-reads the
// file and the leader applies it (forwarded, one entry); and the reloaded
// policies survive the leader's death.
func TestClusterPolicies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three real processes")
	}
	file := enginetest.WriteFile(t, "policies.yaml", "emails:\n  max_reserves: 2\n  dead_letter: emails-dead\nwebhooks:\n  max_ready: 1\n")
	var procs []*enginetest.Member
	for i := range 3 {
		procs = append(procs, enginetest.NewMember(t, fmt.Sprintf("n%d", i+1), "--admin", "127.0.0.1:0", "--policies", file))
	}
	for _, p := range procs {
		p.Start(t, procs)
	}
	leader := enginetest.WaitLeader(t, procs)
	follower := procs[(leader+1)%3]
	policiesOn := func(p *enginetest.Member) (map[string]jobs.Policy, bool) {
		var got struct{ Policies map[string]jobs.Policy }
		ok := enginetest.AdminCall(t, http.MethodGet, p.AdminURL(t)+"/v1/policies", "", nil, &got) == http.StatusOK
		return got.Policies, ok
	}
	fromFile := map[string]jobs.Policy{"emails": {MaxReserves: 2, DeadLetter: "emails-dead"}, "webhooks": {MaxReady: 1}}
	require.Eventually(t, func() bool {
		got, ok := policiesOn(procs[enginetest.WaitLeader(t, procs)])
		return ok && assert.ObjectsAreEqual(fromFile, got)
	}, 30*time.Second, 50*time.Millisecond, "the leader applied the file")

	// The file owns the policies: the API refuses on a follower and on
	// the leader alike, naming the file.
	for _, p := range []*enginetest.Member{follower, procs[leader]} {
		var e struct{ Error struct{ Code, File string } }
		require.Equal(t, http.StatusConflict,
			enginetest.AdminCall(t, http.MethodPut, p.AdminURL(t)+"/v1/tubes/webhooks/policy", "", jobs.Policy{MaxReady: 9}, &e))
		assert.Equal(t, "managed_by_file", e.Error.Code)
		assert.Equal(t, file, e.Error.File)
	}

	// A client of the follower: its connection is carried to the leader.
	c, err := beanstalk.Dial("tcp", follower.Addr())
	require.NoError(t, err)
	defer c.Close()
	hooks := &beanstalk.Tube{Conn: c, Name: "webhooks"}
	_, err = hooks.Put([]byte("one"), 1, 0, time.Minute)
	require.NoError(t, err)
	_, err = hooks.Put([]byte("two"), 1, 0, time.Minute)
	require.ErrorIs(t, err, beanstalk.ErrOOM, "max_ready 1: the protocol's try-again-later")

	id, err := (&beanstalk.Tube{Conn: c, Name: "emails"}).Put([]byte("mail"), 1, 0, time.Minute)
	require.NoError(t, err)
	work := beanstalk.NewTubeSet(c, "emails")
	for range 2 {
		rid, _, err := work.Reserve(enginetest.Timeout)
		require.NoError(t, err)
		require.NoError(t, c.Release(rid, 1, 0))
	}
	rid, _, err := beanstalk.NewTubeSet(c, "emails-dead").Reserve(enginetest.Timeout)
	require.NoError(t, err)
	assert.Equal(t, id, rid, "dead-lettered after 2 reserves, by the file's policy")
	c.Close()

	// SIGHUP on a follower: it reads the file again and the leader makes
	// it the cluster's policies (webhooks is gone, reports is new).
	require.NoError(t, os.WriteFile(file, []byte("emails:\n  max_reserves: 3\nreports:\n  max_ready: 2\n  overflow: bury\n"), 0o600))
	reloaded := map[string]jobs.Policy{"emails": {MaxReserves: 3}, "reports": {MaxReady: 2, Overflow: jobs.OverflowBury}}
	require.NoError(t, follower.Signal(syscall.SIGHUP))
	require.Eventually(t, func() bool {
		got, ok := policiesOn(procs[enginetest.WaitLeader(t, procs)])
		return ok && assert.ObjectsAreEqual(reloaded, got)
	}, 30*time.Second, 50*time.Millisecond, "the reload through a follower is the leader's")
	// The leader's queue shows the change before the follower has read the
	// leader's answer: wait for the follower's own word.
	require.Eventually(t, func() bool { return follower.Logged("policy file applied") },
		30*time.Second, 20*time.Millisecond, "the follower reports the reload applied")

	procs[leader].Kill(t)
	next := enginetest.WaitLeader(t, procs)
	require.NotEqual(t, leader, next)
	require.Eventually(t, func() bool {
		got, ok := policiesOn(procs[next])
		return ok && assert.ObjectsAreEqual(reloaded, got)
	}, 30*time.Second, 50*time.Millisecond, "the new leader holds the reloaded policies")
}
