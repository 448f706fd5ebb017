package node_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// internalError is the reply to a command in flight when the leader changed.
const internalError = "INTERNAL_ERROR"

// TestClusterAdminOneNode: a cluster member serves --admin: /v1/cluster
// (behind the bearer token), the queue endpoints through the queue it
// leads, readiness, and the membership endpoints' refusals.
func TestClusterAdminOneNode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real process")
	}
	const token = "cluster-admin-token-0123456789"
	file := enginetest.WriteFile(t, "tokens", token+"\n")
	p := enginetest.NewMember(t, "n1", "--admin", "127.0.0.1:0", "--auth-token-file", file)
	procs := []*enginetest.Member{p}
	p.Start(t, procs)
	enginetest.WaitLeader(t, procs)
	base := p.AdminURL(t)

	assert.Equal(t, http.StatusUnauthorized, enginetest.AdminCall(t, http.MethodGet, base+"/v1/cluster", "", nil, nil))
	var v enginetest.ClusterView
	require.Equal(t, http.StatusOK, enginetest.AdminCall(t, http.MethodGet, base+"/v1/cluster", token, nil, &v))
	assert.Equal(t, "n1", v.ID)
	assert.Equal(t, "leader", v.State)
	assert.Equal(t, "n1", v.Leader)
	assert.Positive(t, v.Term)
	assert.Positive(t, v.CommitIndex)
	require.Len(t, v.Servers, 1)
	assert.Equal(t, "voter", v.Servers[0].Suffrage)
	assert.Equal(t, p.RaftAddr, v.Servers[0].Addr)

	c, err := enginetest.DialClient(p.Addr())
	require.NoError(t, err)
	defer c.Close()
	for _, req := range []string{"auth " + token + "\r\n", "put 0 0 60 2\r\nhi\r\n"} {
		_, _, err := c.Do(req)
		require.NoError(t, err)
	}
	var st struct{ Jobs struct{ Ready int } }
	require.Eventually(t, func() bool {
		return enginetest.AdminCall(t, http.MethodGet, base+"/v1/stats", token, nil, &st) == http.StatusOK && st.Jobs.Ready == 1
	}, 20*time.Second, 20*time.Millisecond, "the leader's queue through the admin API")
	assert.Equal(t, http.StatusOK, enginetest.AdminCall(t, http.MethodGet, base+"/readyz", "", nil, nil))

	var e struct{ Error struct{ Code string } }
	assert.Equal(t, http.StatusBadRequest, enginetest.AdminCall(t, http.MethodPost, base+"/v1/cluster/voters", token,
		map[string]string{"id": "n2"}, &e))
	assert.Equal(t, "bad_body", e.Error.Code)
	assert.Equal(t, http.StatusNotFound, enginetest.AdminCall(t, http.MethodDelete, base+"/v1/cluster/servers/nope", token, nil, &e))
	assert.Equal(t, http.StatusMethodNotAllowed, enginetest.AdminCall(t, http.MethodGet, base+"/v1/cluster/voters", token, nil, nil))
}

// TestClusterTLS: every member serves --tls too; a TLS client of a
// follower is carried to the leader, and a plain client of the leader sees
// its job. --idle-timeout closes an idle carried connection (TLS or not)
// and leaves a busy one open.
func TestClusterTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes")
	}
	ca := enginetest.NewCA(t, "clients")
	cert, key, _ := ca.Issue(t, "server")
	var procs []*enginetest.Member
	for i := range 3 {
		procs = append(procs, enginetest.NewMember(t, fmt.Sprintf("n%d", i+1),
			"--tls", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key, "--idle-timeout", "1s"))
	}
	for _, p := range procs {
		p.Start(t, procs)
	}
	leader := enginetest.WaitLeader(t, procs)
	f := procs[(leader+1)%3]
	tlsAddr := f.TLSAddr(t)
	tc, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", tlsAddr, &tls.Config{RootCAs: ca.Pool})
	require.NoError(t, err)
	defer tc.Close()
	c := enginetest.WrapClient(tc)
	line, _, err := c.Do("put 0 0 60 6\r\nsecret\r\n")
	require.NoError(t, err)
	require.Equal(t, "INSERTED 1", line)
	pc, err := enginetest.DialClient(procs[leader].Addr())
	require.NoError(t, err)
	defer pc.Close()
	line, body, err := pc.Do("peek 1\r\n")
	for n := 0; err == nil && line == internalError && n < 50; n++ { // a leader change in between
		time.Sleep(100 * time.Millisecond)
		line, body, err = pc.Do("peek 1\r\n")
	}
	require.NoError(t, err)
	assert.Equal(t, "FOUND 1 6", line)
	assert.Equal(t, "secret", string(body))

	plainOnTLS, err := enginetest.DialClient(tlsAddr)
	require.NoError(t, err)
	defer plainOnTLS.Close()
	_, _, err = plainOnTLS.Do("list-tube-used\r\n")
	assert.Error(t, err, "plain text on the TLS port")

	// Idle: the TLS connection now says nothing; the plain one keeps busy
	// for three idle timeouts.
	start := time.Now()
	for time.Since(start) < 3*time.Second {
		line, _, err := pc.Do("list-tube-used\r\n")
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
	var procs []*enginetest.Member
	for i := range 3 {
		procs = append(procs, enginetest.NewMember(t, fmt.Sprintf("n%d", i+1), "--admin", "127.0.0.1:0"))
	}
	initial := slices.Clone(procs)
	for _, p := range procs {
		p.Peers = initial
		p.Start(t, procs)
	}
	tr := enginetest.NewTracker()
	load := func(round int, d time.Duration) {
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for i, p := range procs {
			if !p.Running() {
				continue
			}
			wg.Add(2)
			go func() { defer wg.Done(); enginetest.Produce(p.Addr(), tr, stop, fmt.Sprintf("m%d-n%d", round, i)) }()
			go func() { defer wg.Done(); enginetest.Consume(p.Addr(), tr, stop, uint64(round*10+i)) }()
		}
		time.Sleep(d)
		close(stop)
		wg.Wait()
	}
	leader := enginetest.WaitLeader(t, procs)
	load(0, time.Second)

	// A fourth node: empty, no --raft-peers; added as a voter.
	n4 := enginetest.NewMember(t, "n4", "--admin", "127.0.0.1:0")
	n4.NoPeers = true
	n4.Start(t, nil)
	leader = enginetest.WaitLeader(t, procs)
	follower := procs[(leader+1)%3]
	// Asked of a follower, the change is forwarded to the leader; the
	// answer is the follower's own view, which shows it.
	add := map[string]string{"id": n4.ID, "addr": n4.RaftAddr}
	added := time.Now()
	var v enginetest.ClusterView
	if code := enginetest.AdminCall(t, http.MethodPost, follower.AdminURL(t)+"/v1/cluster/voters", "", add, &v); code == http.StatusOK {
		assert.Equal(t, follower.ID, v.ID, "the answer is the asked node's own view")
		assert.Eventually(t, func() bool { return follower.Logged("membership change forwarded to the leader") },
			10*time.Second, 10*time.Millisecond, "the follower forwarded it (its log is read as it comes)")
	} else { // leadership moved meanwhile (a loaded box): 421 or 503, then ask the leader
		require.Contains(t, []int{http.StatusMisdirectedRequest, http.StatusServiceUnavailable}, code)
		v = enginetest.OnLeader(t, procs, http.MethodPost, "/v1/cluster/voters", add)
	}
	require.Len(t, v.Servers, 4)
	target := v.CommitIndex
	enginetest.WaitApplied(t, n4, target)
	catchUp := time.Since(added)
	procs = append(procs, n4)
	load(1, time.Second)

	// A follower is removed, loses its disk, comes back with its usual
	// flags (peers included), and is added again.
	wi := (leader + 2) % 3
	w := procs[wi]
	v = enginetest.OnLeader(t, procs, http.MethodDelete, "/v1/cluster/servers/"+w.ID, nil)
	require.Len(t, v.Servers, 3)
	w.Kill(t)
	require.NoError(t, os.RemoveAll(w.Dir))
	require.NoError(t, os.MkdirAll(w.Dir, 0o700))
	w.Start(t, nil) // p.peers: the initial three
	require.Eventually(t, func() bool { return w.Logged("not bootstrapping") }, 30*time.Second, 10*time.Millisecond,
		"the wiped node must see the existing cluster and not bootstrap")
	assert.False(t, w.Logged("cluster bootstrapped"))
	rejoined := time.Now()
	v = enginetest.OnLeader(t, procs, http.MethodPost, "/v1/cluster/voters", map[string]string{"id": w.ID, "addr": w.RaftAddr})
	require.Len(t, v.Servers, 4)
	enginetest.WaitApplied(t, w, v.CommitIndex)
	rejoin := time.Since(rejoined)

	// Kill the leader until the added node leads (at most five times).
	var failovers []time.Duration
	for round := 2; round < 7; round++ {
		leader = enginetest.WaitLeader(t, procs)
		if procs[leader] == n4 {
			break
		}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for i, p := range procs {
			wg.Add(2)
			go func() { defer wg.Done(); enginetest.Produce(p.Addr(), tr, stop, fmt.Sprintf("m%d-n%d", round, i)) }()
			go func() { defer wg.Done(); enginetest.Consume(p.Addr(), tr, stop, uint64(round*10+i)) }()
		}
		time.Sleep(300 * time.Millisecond)
		killed := time.Now()
		procs[leader].Kill(t)
		failovers = append(failovers, firstPut(t, n4.Addr(), tr, killed))
		close(stop)
		wg.Wait()
		procs[leader].Start(t, nil)
	}
	leader = enginetest.WaitLeader(t, procs)
	for _, p := range procs {
		tr.Verify(t, p.Addr(), 7)
	}
	puts, deletes := tr.Counts()
	slices.Sort(failovers)
	fo := "none"
	if len(failovers) > 0 {
		fo = fmt.Sprintf("p50 %v max %v over %d kills", failovers[len(failovers)/2], failovers[len(failovers)-1], len(failovers))
	}
	t.Logf("catch-up of an added voter %v (to commit index %d); wiped node rejoined in %v; failover %s; "+
		"%d acknowledged puts, %d acknowledged deletes, all accounted for; leader now %s (added node leads: %v)",
		catchUp, target, rejoin, fo, puts, deletes, procs[leader].ID, procs[leader] == n4)
	require.Positive(t, puts)
}
