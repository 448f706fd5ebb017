package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stalkd/stalkd/engine/admin"
	jobsq "github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// fakeCluster is an admin.Cluster whose membership is a list: the real
// admin listener serves it, and stalkctl talks to that.
type fakeCluster struct {
	mu      sync.Mutex
	leading bool
	servers []cluster.Server
}

func (f *fakeCluster) Status() cluster.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := cluster.Status{ID: "n1", State: "follower", Leader: "n2", LeaderAddr: "10.0.0.2:11310", Term: 7,
		CommitIndex: 42, AppliedIndex: 41, Servers: append([]cluster.Server(nil), f.servers...)}
	if f.leading {
		st.State, st.Leader, st.LeaderAddr = "leader", "n1", "10.0.0.1:11310"
	}
	return st
}

func (f *fakeCluster) Queue() *jobsq.Queue { return nil }

func (f *fakeCluster) AddVoter(id, addr string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.leading {
		return cluster.ErrNotLeader
	}
	f.servers = append(f.servers, cluster.Server{ID: id, Addr: addr, Suffrage: cluster.Voter})
	return nil
}

func (f *fakeCluster) RemoveServer(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.leading {
		return cluster.ErrNotLeader
	}
	for i, s := range f.servers {
		if s.ID == id {
			f.servers = append(f.servers[:i], f.servers[i+1:]...)
		}
	}
	return nil
}

func (f *fakeCluster) has(id string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.servers {
		if s.ID == id {
			return true
		}
	}
	return false
}

const clusterToken = "stalkctl-cluster-token-0123456789"

// startAdmin serves c on a loopback admin listener with a bearer token.
func startAdmin(t *testing.T, c admin.Cluster) string {
	t.Helper()
	return serveAdmin(t, admin.Options{Addr: "127.0.0.1:0", Cluster: c, Tokens: []string{clusterToken}})
}

// serveAdmin starts an admin listener, stopped at the test's end, and
// returns its URL.
func serveAdmin(t *testing.T, o admin.Options) string {
	t.Helper()
	s, err := admin.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Stop(ctx)
	})
	return s.URL()
}

// ctlEnv runs stalkctl with the given environment.
func ctlEnv(env map[string]string, args ...string) run {
	var out, errb bytes.Buffer
	a := testApp(nil, &out, &errb, env)
	code := a.main(context.Background(), args)
	return run{code, out.String(), errb.String()}
}

// TestClusterCommands: cluster, add-voter and remove-server through the
// admin API, with the token from a file or the environment; a follower's
// 421 is exit 7 naming the leader; a wrong token is reported.
func TestClusterCommands(t *testing.T) {
	leader := &fakeCluster{leading: true, servers: []cluster.Server{
		{ID: "n1", Addr: "10.0.0.1:11310", Suffrage: cluster.Voter}, {ID: "n2", Addr: "10.0.0.2:11310", Suffrage: cluster.Voter}}}
	url := startAdmin(t, leader)
	tokFile := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokFile, []byte(clusterToken+"\nother\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"STALKD_ADMIN": url, "STALKD_ADMIN_TOKEN": clusterToken}

	r := ctlEnv(nil, "--json", "cluster", "--admin", url, "--admin-token-file", tokFile)
	var v struct {
		ID, State, Leader string
		Servers           []struct{ ID, Suffrage string }
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &v) != nil || v.State != "leader" || len(v.Servers) != 2 {
		t.Fatalf("cluster --json: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = ctlEnv(env, "cluster")
	if r.code != 0 || !strings.Contains(r.stdout, "node n1: leader, leader n1, term 7") || !strings.Contains(r.stdout, "n1 *") {
		t.Errorf("cluster: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	if r = ctlEnv(env, "add-voter", "n4", "10.0.0.4:11310"); r.code != 0 || !leader.has("n4") {
		t.Fatalf("add-voter: exit %d %q", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "10.0.0.4:11310") {
		t.Errorf("add-voter prints the new configuration: %q", r.stdout)
	}
	if r = ctlEnv(env, "remove-server", "n4"); r.code != 0 || leader.has("n4") {
		t.Fatalf("remove-server: exit %d %q", r.code, r.stderr)
	}
	if r = ctlEnv(env, "remove-server", "nope"); r.code != exitNotFound {
		t.Errorf("remove-server of no member: exit %d %q", r.code, r.stderr)
	}

	follower := &fakeCluster{servers: leader.servers}
	furl := startAdmin(t, follower)
	r = ctlEnv(map[string]string{"STALKD_ADMIN_TOKEN": clusterToken}, "add-voter", "n4", "10.0.0.4:11310", "--admin", furl)
	if r.code != exitNotLeader || !strings.Contains(r.stderr, "n2") || follower.has("n4") {
		t.Errorf("add-voter on a follower: exit %d %q", r.code, r.stderr)
	}

	r = ctlEnv(map[string]string{"STALKD_ADMIN": url, "STALKD_ADMIN_TOKEN": "wrong"}, "add-voter", "n5", "10.0.0.5:1")
	if r.code != exitFailure || !strings.Contains(r.stderr, "bearer token") || leader.has("n5") {
		t.Errorf("wrong token: exit %d %q", r.code, r.stderr)
	}
	// Without --admin the default address is used (TestAdminAddressDefault;
	// not dialled here: another server may listen there).
}

// TestClusterStatsFallback: without --admin, cluster shows the protocol's
// stats-cluster document (a single node: standalone).
func TestClusterStatsFallback(t *testing.T) {
	addr := startServer(t)
	r := ctlEnv(map[string]string{"STALKD_ADDR": addr}, "cluster")
	if r.code != 0 || !strings.Contains(r.stdout, "state: standalone") {
		t.Errorf("cluster: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// TestClusterStandalone: cluster --admin asked of a single node (its
// admin API has no /v1/cluster) says the node is standalone and exits 0,
// alone or among a cluster's nodes.
func TestClusterStandalone(t *testing.T) {
	_, _, _, env := policyStack(t)
	single := env["STALKD_ADMIN"]
	r := ctlEnv(nil, "cluster", "--admin", single)
	if r.code != 0 || r.stdout != single+": standalone (a single node, not a member of a cluster)\n" {
		t.Errorf("cluster of a single node: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = ctlEnv(env, "--json", "cluster")
	var got map[string]string
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &got) != nil || got["state"] != "standalone" || got["admin"] != single {
		t.Errorf("cluster --json of a single node: exit %d %q", r.code, r.stdout)
	}
	member := startAdmin(t, &fakeCluster{leading: true, servers: []cluster.Server{{ID: "n1", Addr: "10.0.0.1:11310", Suffrage: cluster.Voter}}})
	r = ctlEnv(map[string]string{"STALKD_ADMIN_TOKEN": clusterToken}, "cluster", "--admin", member+","+single)
	if r.code != 0 || !strings.Contains(r.stdout, "standalone") || !strings.Contains(r.stdout, "node n1") {
		t.Errorf("cluster of a member and a single node: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
}
