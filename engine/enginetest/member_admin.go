package enginetest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A cluster member's admin API, as the tests call it.

// ClusterView is GET /v1/cluster.
type ClusterView struct {
	ID, State, Leader string
	Term              uint64
	CommitIndex       uint64 `json:"commit_index"`
	AppliedIndex      uint64 `json:"applied_index"`
	Servers           []struct{ ID, Addr, Suffrage string }
}

// AdminCall sends one admin API request (in as its JSON body, when not
// nil; token as its bearer token, when not empty) and decodes the JSON
// reply into out (when not nil); it returns the status.
func AdminCall(t testing.TB, method, url, token string, in, out any) int {
	t.Helper()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		require.NoError(t, err)
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, body)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if out != nil {
		require.NoError(t, json.Unmarshal(b, out), "%s %s: %s", method, url, b)
	}
	return resp.StatusCode
}

// Cluster is the member's own view of its cluster (--admin).
func (p *Member) Cluster(t testing.TB) ClusterView {
	t.Helper()
	var v ClusterView
	require.Equal(t, http.StatusOK, AdminCall(t, http.MethodGet, p.AdminURL(t)+"/v1/cluster", "", nil, &v))
	return v
}

// WaitApplied waits until p's raft has applied index idx (it caught up),
// for at most 60 s.
func WaitApplied(t testing.TB, p *Member, idx uint64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if p.Cluster(t).AppliedIndex >= idx {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s did not apply index %d within 60s", p.ID, idx)
}

// OnLeader sends a membership call to the current leader's admin API, and
// again to the next leader when leadership moved meanwhile (421, or 503
// from a change cut short; a removal that went through the first time is
// 404 the second).
func OnLeader(t testing.TB, ms []*Member, method, path string, in any) ClusterView {
	t.Helper()
	for try := 0; try < 20; try++ {
		l := WaitLeader(t, ms)
		var v ClusterView
		code := AdminCall(t, method, ms[l].AdminURL(t)+path, "", in, &v)
		switch {
		case code == http.StatusOK:
			return v
		case code == http.StatusNotFound && try > 0 && method == http.MethodDelete:
			return ms[l].Cluster(t)
		case code != http.StatusMisdirectedRequest && code != http.StatusServiceUnavailable:
			t.Fatalf("%s %s: status %d", method, path, code)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s %s: no leader took it", method, path)
	return ClusterView{}
}
