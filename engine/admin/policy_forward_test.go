package admin

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// forwardingCluster is a follower whose policy changes reach a leader's
// queue (leader), or find no leader (lost).
type forwardingCluster struct {
	switchCluster
	leader *jobs.Queue
	lost   *atomic.Bool
}

func (c forwardingCluster) SetPolicy(tube string, p jobs.Policy) error {
	if c.lost.Load() {
		return cluster.ErrNotLeader
	}
	return c.leader.SetPolicy(tube, p)
}

func (c forwardingCluster) PatchPolicy(tube string, patch []byte) (jobs.Policy, error) {
	if c.lost.Load() {
		return jobs.Policy{}, cluster.ErrNotLeader
	}
	p, _, err := c.leader.UpdatePolicySeq(tube, func(cur jobs.Policy, _ bool) (jobs.Policy, error) {
		return jobs.MergePolicyPatch(cur, patch)
	})
	return p, err
}

func (c forwardingCluster) RemovePolicy(tube string) (bool, error) {
	if c.lost.Load() {
		return false, cluster.ErrNotLeader
	}
	return c.leader.RemovePolicy(tube)
}

// TestAPIPolicyForwardedByFollower: with a PolicyForwarder, a follower
// takes PUT and DELETE of a policy and answers as the leader would: 200
// and the policy, 400 bad_policy naming the field the leader refused, 404
// when there was none; 421 when no leader takes the change. Reading stays
// the leader's (421).
func TestAPIPolicyForwardedByFollower(t *testing.T) {
	var cur atomic.Pointer[jobs.Queue]
	var lost atomic.Bool
	leader := jobs.New(jobs.Config{})
	srv, err := Start(Options{Addr: "127.0.0.1:0", Cluster: forwardingCluster{switchCluster{&cur}, leader, &lost}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Stop(context.Background()) })
	call := func(method, body string) (int, string) {
		req, err := http.NewRequest(method, srv.URL()+"/v1/tubes/t/policy", strings.NewReader(body))
		require.NoError(t, err)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}

	code, body := call(http.MethodPut, `{"max_ready": 7}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.JSONEq(t, `{"max_ready": 7}`, body)
	p, ok := leader.Policy("t")
	require.True(t, ok, "the leader has it")
	assert.Equal(t, uint32(7), p.MaxReady)

	code, body = call(http.MethodPut, `{"max_reserves": 1, "dead_letter": "t"}`) // refused by the leader only
	require.Equal(t, http.StatusBadRequest, code, body)
	var pe policyErr
	require.NoError(t, json.Unmarshal([]byte(body), &pe))
	assert.Equal(t, "bad_policy", pe.Error.Code)
	assert.Equal(t, "dead_letter", pe.Error.Field)

	// PATCH goes to the leader as a patch, merged there into its policy.
	require.NoError(t, leader.SetPolicy("t", jobs.Policy{MaxReserves: 2, DeadLetter: "dead", MaxReady: 7}))
	code, body = call(http.MethodPatch, `{"max_ready": null, "reserve_rate": 4}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.JSONEq(t, `{"max_reserves": 2, "dead_letter": "dead", "reserve_rate": 4}`, body)
	p, _ = leader.Policy("t")
	assert.Equal(t, jobs.Policy{MaxReserves: 2, DeadLetter: "dead", ReserveRate: 4}, p)
	code, body = call(http.MethodPatch, `{"max_reserves": null}`) // refused by the leader: dead_letter needs it
	require.Equal(t, http.StatusBadRequest, code, body)
	assert.Contains(t, body, `"field": "dead_letter"`)
	code, body = call(http.MethodPatch, `{"max_resrves": 1}`) // refused by the follower before forwarding
	require.Equal(t, http.StatusBadRequest, code, body)
	assert.Contains(t, body, `"field": "max_resrves"`)

	code, body = call(http.MethodGet, "")
	assert.Equal(t, http.StatusMisdirectedRequest, code, "reading is not forwarded: %s", body)

	code, body = call(http.MethodDelete, "")
	require.Equal(t, http.StatusOK, code, body)
	_, ok = leader.Policy("t")
	assert.False(t, ok)
	code, body = call(http.MethodDelete, "")
	assert.Equal(t, http.StatusNotFound, code, body)
	assert.Contains(t, body, "no_policy")

	lost.Store(true)
	code, body = call(http.MethodPut, `{"max_ready": 7}`)
	assert.Equal(t, http.StatusMisdirectedRequest, code)
	assert.Contains(t, body, `"leader": "n2"`)
	_, ok = leader.Policy("t")
	assert.False(t, ok)
}
