package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// internalError is the reply to a command in flight when the leader changed.
const internalError = "INTERNAL_ERROR"

// waitField waits until f returns a non-empty value read under p.mu (an
// address the log reports once that listener is up).
func (p *clusterProc) waitField(t *testing.T, what string, f func() string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		v := f()
		p.mu.Unlock()
		if v != "" {
			return v
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s: no %s within 30s", p.id, what)
	return ""
}

func (p *clusterProc) admin(t *testing.T) string {
	return "http://" + p.waitField(t, "admin address", func() string { return p.adminAddr })
}

// logged reports whether the process logged a line containing s.
func (p *clusterProc) logged(s string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.logs {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// clusterView is GET /v1/cluster.
type clusterView struct {
	ID, State, Leader string
	Term              uint64
	CommitIndex       uint64 `json:"commit_index"`
	AppliedIndex      uint64 `json:"applied_index"`
	Servers           []struct{ ID, Addr, Suffrage string }
}

// adminCall sends one admin API request and decodes the JSON reply into
// out (when not nil); it returns the status.
func adminCall(t *testing.T, method, url, token string, in, out any) int {
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

func getCluster(t *testing.T, p *clusterProc) clusterView {
	var v clusterView
	require.Equal(t, http.StatusOK, adminCall(t, http.MethodGet, p.admin(t)+"/v1/cluster", "", nil, &v))
	return v
}

// TestClusterAdminOneNode: a cluster member serves --admin: /v1/cluster
// (behind the bearer token), the queue endpoints through the queue it
// leads, readiness, and the membership endpoints' refusals.
func TestClusterAdminOneNode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real process")
	}
	const token = "cluster-admin-token-0123456789"
	file := filepath.Join(t.TempDir(), "tokens")
	require.NoError(t, os.WriteFile(file, []byte(token+"\n"), 0o600))
	p := &clusterProc{id: "n1", raftAddr: freeAddr(t), dir: crashDir(t),
		extra: []string{"--admin", "127.0.0.1:0", "--auth-token-file", file}}
	procs := []*clusterProc{p}
	p.start(t, procs)
	waitLeader(t, procs)
	base := p.admin(t)

	assert.Equal(t, http.StatusUnauthorized, adminCall(t, http.MethodGet, base+"/v1/cluster", "", nil, nil))
	var v clusterView
	require.Equal(t, http.StatusOK, adminCall(t, http.MethodGet, base+"/v1/cluster", token, nil, &v))
	assert.Equal(t, "n1", v.ID)
	assert.Equal(t, "leader", v.State)
	assert.Equal(t, "n1", v.Leader)
	assert.Positive(t, v.Term)
	assert.Positive(t, v.CommitIndex)
	require.Len(t, v.Servers, 1)
	assert.Equal(t, "voter", v.Servers[0].Suffrage)
	assert.Equal(t, p.raftAddr, v.Servers[0].Addr)

	c, err := dialBeanstalk(p.addr)
	require.NoError(t, err)
	defer c.close()
	for _, req := range []string{"auth " + token + "\r\n", "put 0 0 60 2\r\nhi\r\n"} {
		_, _, err := c.do(req)
		require.NoError(t, err)
	}
	var st struct{ Jobs struct{ Ready int } }
	require.Eventually(t, func() bool {
		return adminCall(t, http.MethodGet, base+"/v1/stats", token, nil, &st) == http.StatusOK && st.Jobs.Ready == 1
	}, 20*time.Second, 20*time.Millisecond, "the leader's queue through the admin API")
	assert.Equal(t, http.StatusOK, adminCall(t, http.MethodGet, base+"/readyz", "", nil, nil))

	var e struct{ Error struct{ Code string } }
	assert.Equal(t, http.StatusBadRequest, adminCall(t, http.MethodPost, base+"/v1/cluster/voters", token,
		map[string]string{"id": "n2"}, &e))
	assert.Equal(t, "bad_body", e.Error.Code)
	assert.Equal(t, http.StatusNotFound, adminCall(t, http.MethodDelete, base+"/v1/cluster/servers/nope", token, nil, &e))
	assert.Equal(t, http.StatusMethodNotAllowed, adminCall(t, http.MethodGet, base+"/v1/cluster/voters", token, nil, nil))
}

// TestClusterTLS: every member serves --tls too; a TLS client of a
// follower is carried to the leader, and a plain client of the leader sees
// its job. --idle-timeout closes an idle carried connection (TLS or not)
// and leaves a busy one open.
func TestClusterTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes")
	}
	pk := newPKI(t)
	pk.issue(t, "server", true)
	var procs []*clusterProc
	for i := range 3 {
		procs = append(procs, &clusterProc{id: fmt.Sprintf("n%d", i+1), raftAddr: freeAddr(t), dir: crashDir(t),
			extra: []string{"--tls", "127.0.0.1:0", "--tls-cert", filepath.Join(pk.dir, "server.crt"),
				"--tls-key", filepath.Join(pk.dir, "server.key"), "--idle-timeout", "1s"}})
	}
	for _, p := range procs {
		p.start(t, procs)
	}
	leader := waitLeader(t, procs)
	f := procs[(leader+1)%3]
	tlsAddr := f.waitField(t, "TLS address", func() string { return f.tlsAddr })
	tc, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", tlsAddr, &tls.Config{RootCAs: pk.pool})
	require.NoError(t, err)
	defer tc.Close()
	c := &beanstalkConn{c: tc, r: bufio.NewReader(tc)}
	line, _, err := c.do("put 0 0 60 6\r\nsecret\r\n")
	require.NoError(t, err)
	require.Equal(t, "INSERTED 1", line)
	pc, err := dialBeanstalk(procs[leader].addr)
	require.NoError(t, err)
	defer pc.close()
	line, body, err := pc.do("peek 1\r\n")
	for n := 0; err == nil && line == internalError && n < 50; n++ { // a leader change in between
		time.Sleep(100 * time.Millisecond)
		line, body, err = pc.do("peek 1\r\n")
	}
	require.NoError(t, err)
	assert.Equal(t, "FOUND 1 6", line)
	assert.Equal(t, "secret", string(body))

	plainOnTLS, err := dialBeanstalk(tlsAddr)
	require.NoError(t, err)
	defer plainOnTLS.close()
	_, _, err = plainOnTLS.do("list-tube-used\r\n")
	assert.Error(t, err, "plain text on the TLS port")

	// Idle: the TLS connection now says nothing; the plain one keeps busy
	// for three idle timeouts.
	start := time.Now()
	for time.Since(start) < 3*time.Second {
		line, _, err := pc.do("list-tube-used\r\n")
		require.NoError(t, err, "a busy connection stays open")
		if line != internalError { // what a command in flight gets when the leader changes (a loaded box)
			require.Equal(t, "USING default", line)
		}
		time.Sleep(200 * time.Millisecond)
	}
	_ = tc.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err = tc.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the idle TLS connection was closed")
}

// TestClusterMembershipProcesses: three processes on loopback take puts
// and deletes through every node; a fourth node, started empty and without
// --raft-peers, is added through a follower (which forwards the change to
// the leader), and catches up; a follower is removed, loses
// its disk, is restarted with its usual flags (it must not bootstrap) and
// added back; then the leader is killed, repeatedly, until the added node
// leads, and every acknowledged put and delete is checked through it. The
// catch-up and failover times are logged.
func TestClusterMembershipProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs four real processes")
	}
	var procs []*clusterProc
	for i := range 3 {
		procs = append(procs, &clusterProc{id: fmt.Sprintf("n%d", i+1), raftAddr: freeAddr(t), dir: crashDir(t),
			extra: []string{"--admin", "127.0.0.1:0"}})
	}
	initial := slices.Clone(procs)
	for _, p := range procs {
		p.peers = initial
		p.start(t, procs)
	}
	tr := newTracker()
	load := func(round int, d time.Duration) {
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for i, p := range procs {
			if p.cmd == nil {
				continue
			}
			wg.Add(2)
			go func() { defer wg.Done(); produce(p.addr, tr, stop, fmt.Sprintf("m%d-n%d", round, i)) }()
			go func() { defer wg.Done(); consume(p.addr, tr, stop, uint64(round*10+i)) }()
		}
		time.Sleep(d)
		close(stop)
		wg.Wait()
	}
	leader := waitLeader(t, procs)
	load(0, time.Second)

	// A fourth node: empty, no --raft-peers; added as a voter.
	n4 := &clusterProc{id: "n4", raftAddr: freeAddr(t), dir: crashDir(t), noPeers: true,
		extra: []string{"--admin", "127.0.0.1:0"}}
	n4.start(t, nil)
	leader = waitLeader(t, procs)
	follower := procs[(leader+1)%3]
	// Asked of a follower, the change is forwarded to the leader; the
	// answer is the follower's own view, which shows it.
	add := map[string]string{"id": n4.id, "addr": n4.raftAddr}
	added := time.Now()
	var v clusterView
	if code := adminCall(t, http.MethodPost, follower.admin(t)+"/v1/cluster/voters", "", add, &v); code == http.StatusOK {
		assert.Equal(t, follower.id, v.ID, "the answer is the asked node's own view")
		assert.Eventually(t, func() bool { return follower.logged("membership change forwarded to the leader") },
			10*time.Second, 10*time.Millisecond, "the follower forwarded it (its log is read as it comes)")
	} else { // leadership moved meanwhile (a loaded box): 421 or 503, then ask the leader
		require.Contains(t, []int{http.StatusMisdirectedRequest, http.StatusServiceUnavailable}, code)
		v = onLeader(t, procs, http.MethodPost, "/v1/cluster/voters", add)
	}
	require.Len(t, v.Servers, 4)
	target := v.CommitIndex
	waitApplied(t, n4, target)
	catchUp := time.Since(added)
	procs = append(procs, n4)
	load(1, time.Second)

	// A follower is removed, loses its disk, comes back with its usual
	// flags (peers included), and is added again.
	wi := (leader + 2) % 3
	w := procs[wi]
	v = onLeader(t, procs, http.MethodDelete, "/v1/cluster/servers/"+w.id, nil)
	require.Len(t, v.Servers, 3)
	w.kill(t)
	require.NoError(t, os.RemoveAll(w.dir))
	require.NoError(t, os.MkdirAll(w.dir, 0o700))
	w.start(t, nil) // p.peers: the initial three
	require.Eventually(t, func() bool { return w.logged("not bootstrapping") }, 30*time.Second, 10*time.Millisecond,
		"the wiped node must see the existing cluster and not bootstrap")
	assert.False(t, w.logged("cluster bootstrapped"))
	rejoined := time.Now()
	v = onLeader(t, procs, http.MethodPost, "/v1/cluster/voters", map[string]string{"id": w.id, "addr": w.raftAddr})
	require.Len(t, v.Servers, 4)
	waitApplied(t, w, v.CommitIndex)
	rejoin := time.Since(rejoined)

	// Kill the leader until the added node leads (at most five times).
	var failovers []time.Duration
	for round := 2; round < 7; round++ {
		leader = waitLeader(t, procs)
		if procs[leader] == n4 {
			break
		}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for i, p := range procs {
			wg.Add(2)
			go func() { defer wg.Done(); produce(p.addr, tr, stop, fmt.Sprintf("m%d-n%d", round, i)) }()
			go func() { defer wg.Done(); consume(p.addr, tr, stop, uint64(round*10+i)) }()
		}
		time.Sleep(300 * time.Millisecond)
		killed := time.Now()
		procs[leader].kill(t)
		failovers = append(failovers, firstPut(t, n4.addr, tr, killed))
		close(stop)
		wg.Wait()
		procs[leader].start(t, nil)
	}
	leader = waitLeader(t, procs)
	for _, p := range procs {
		tr.verify(t, p.addr, 7)
	}
	puts, deletes := tr.counts()
	slices.Sort(failovers)
	fo := "none"
	if len(failovers) > 0 {
		fo = fmt.Sprintf("p50 %v max %v over %d kills", failovers[len(failovers)/2], failovers[len(failovers)-1], len(failovers))
	}
	t.Logf("catch-up of an added voter %v (to commit index %d); wiped node rejoined in %v; failover %s; "+
		"%d acknowledged puts, %d acknowledged deletes, all accounted for; leader now %s (added node leads: %v)",
		catchUp, target, rejoin, fo, puts, deletes, procs[leader].id, procs[leader] == n4)
	require.Positive(t, puts)
}

// onLeader sends a membership call to the current leader's admin API, and
// again to the next leader when leadership moved meanwhile (421, or 503
// from a change cut short; a removal that went through the first time is
// 404 the second).
func onLeader(t *testing.T, procs []*clusterProc, method, path string, in any) clusterView {
	t.Helper()
	for try := 0; try < 20; try++ {
		l := waitLeader(t, procs)
		var v clusterView
		code := adminCall(t, method, procs[l].admin(t)+path, "", in, &v)
		switch {
		case code == http.StatusOK:
			return v
		case code == http.StatusNotFound && try > 0 && method == http.MethodDelete:
			return getCluster(t, procs[l])
		case code != http.StatusMisdirectedRequest && code != http.StatusServiceUnavailable:
			t.Fatalf("%s %s: status %d", method, path, code)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s %s: no leader took it", method, path)
	return clusterView{}
}

// waitApplied waits until p's raft has applied index idx (it caught up).
func waitApplied(t *testing.T, p *clusterProc, idx uint64) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if getCluster(t, p).AppliedIndex >= idx {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s did not apply index %d within 60s", p.id, idx)
}
