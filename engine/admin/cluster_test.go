package admin

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// switchCluster is a Cluster whose leadership a test flips.
type switchCluster struct {
	q *atomic.Pointer[jobs.Queue] // nil: a follower
}

func (c switchCluster) Status() cluster.Status {
	st := cluster.Status{ID: "n1", State: "follower", Leader: "n2", LeaderAddr: "10.0.0.2:11310", Term: 3,
		Servers: []cluster.Server{{ID: "n1", Addr: "10.0.0.1:11310", Suffrage: cluster.Voter}}}
	if c.q.Load() != nil {
		st.State, st.Leader, st.LeaderAddr = "leader", "n1", "10.0.0.1:11310"
	}
	return st
}
func (c switchCluster) Queue() *jobs.Queue         { return c.q.Load() }
func (c switchCluster) AddVoter(_, _ string) error { return cluster.ErrNotLeader }
func (c switchCluster) RemoveServer(string) error  { return cluster.ErrNotLeader }

// TestClusterFollowerAndLeader: on a follower the queue endpoints answer
// 421 not_leader naming the leader, while /v1/cluster, /metrics and
// /readyz answer; once the node leads, the same endpoints read its queue.
func TestClusterFollowerAndLeader(t *testing.T) {
	var cur atomic.Pointer[jobs.Queue]
	s, err := Start(Options{Addr: "127.0.0.1:0", Cluster: switchCluster{&cur}, SampleInterval: 10 * time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	get := func(path string) (int, string) {
		resp, err := http.Get(s.URL() + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get("/v1/stats")
	require.Equal(t, http.StatusMisdirectedRequest, code)
	var e struct {
		Error struct {
			Code, Leader string
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &e))
	assert.Equal(t, "not_leader", e.Error.Code)
	assert.Equal(t, "n2", e.Error.Leader)
	code, body = get("/v1/cluster")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `"state": "follower"`)
	code, _ = get("/metrics")
	assert.Equal(t, http.StatusOK, code)
	code, _ = get("/readyz")
	assert.Equal(t, http.StatusOK, code, "a follower that knows a leader carries commands: ready")
	code, _ = get("/v1/history")
	assert.Equal(t, http.StatusMisdirectedRequest, code)

	q := jobs.New(jobs.Config{})
	ss := q.NewSession(nil)
	_, _, err = ss.Put(jobs.PutRequest{TTR: time.Minute, Owned: []byte("x")})
	require.NoError(t, err)
	cur.Store(q)
	code, body = get("/v1/stats")
	require.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, `"ready": 1`)
	_, body = get("/metrics")
	assert.True(t, strings.Contains(body, `stalkd_server_jobs{state="ready"} 1`), "the leader's queue in /metrics")
}
