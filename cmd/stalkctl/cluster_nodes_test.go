package main

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	jobsq "github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// nodeFake is one node of a fake cluster: its own id, the leader it knows,
// and (on the leader) the membership.
type nodeFake struct {
	id, leader string
	mu         sync.Mutex
	servers    []cluster.Server
}

func (f *nodeFake) Status() cluster.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := cluster.Status{ID: f.id, State: "follower", Leader: f.leader, LeaderAddr: "10.0.0.9:11310",
		Term: 3, Servers: append([]cluster.Server(nil), f.servers...)}
	if f.id == f.leader {
		st.State = "leader"
	}
	return st
}

func (f *nodeFake) Queue() *jobsq.Queue { return nil }

func (f *nodeFake) AddVoter(id, addr string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.id != f.leader {
		return cluster.ErrNotLeader
	}
	f.servers = append(f.servers, cluster.Server{ID: id, Addr: addr, Suffrage: cluster.Voter})
	return nil
}

func (f *nodeFake) RemoveServer(string) error { return cluster.ErrNotLeader }

// TestClusterSeveralNodes: with every node's admin address, cluster shows
// each node's own view (text and --json), and a change refused by a
// follower (421) is sent to the node the 421 named. A node that does not
// answer is reported beside the others' views.
func TestClusterSeveralNodes(t *testing.T) {
	n1 := &nodeFake{id: "n1", leader: "n3"}
	n2 := &nodeFake{id: "n2", leader: "n3"}
	n3 := &nodeFake{id: "n3", leader: "n3", servers: []cluster.Server{{ID: "n1"}, {ID: "n2"}, {ID: "n3"}}}
	urls := []string{startAdmin(t, n1), startAdmin(t, n2), startAdmin(t, n3)}
	env := map[string]string{"STALKD_ADMIN": strings.Join(urls, ","), "STALKD_ADMIN_TOKEN": clusterToken}

	r := ctlEnv(env, "cluster")
	if r.code != 0 {
		t.Fatalf("cluster: exit %d %q", r.code, r.stderr)
	}
	for _, want := range []string{"node n1: follower, leader n3", "node n2: follower, leader n3", "node n3: leader, leader n3"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("cluster: no %q in\n%s", want, r.stdout)
		}
	}
	r = ctlEnv(env, "--json", "cluster")
	var views []struct{ ID, State string }
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &views) != nil || len(views) != 3 ||
		views[0].ID != "n1" || views[1].ID != "n2" || views[2].ID != "n3" || views[2].State != "leader" {
		t.Errorf("cluster --json: exit %d %q", r.code, r.stdout)
	}

	r = ctlEnv(env, "add-voter", "n4", "10.0.0.4:11310")
	if r.code != 0 || !strings.Contains(r.stderr, "sending add-voter to the leader n3") {
		t.Fatalf("add-voter through a follower: exit %d %q", r.code, r.stderr)
	}
	if len(n3.Status().Servers) != 4 || !strings.Contains(r.stdout, "10.0.0.4:11310") {
		t.Errorf("the leader did not take it: %+v; %q", n3.Status().Servers, r.stdout)
	}

	// Only followers listed: the 421 stands (exit 7, naming the leader).
	r = ctlEnv(map[string]string{"STALKD_ADMIN_TOKEN": clusterToken}, "add-voter", "n5", "10.0.0.5:1",
		"--admin", urls[0]+","+urls[1])
	if r.code != exitNotLeader || !strings.Contains(r.stderr, "n3") {
		t.Errorf("no leader listed: exit %d %q", r.code, r.stderr)
	}

	// A node that does not answer: the others are shown, and the exit code says so.
	r = ctlEnv(map[string]string{"STALKD_ADMIN_TOKEN": clusterToken}, "cluster", "--admin", urls[0]+",http://127.0.0.1:1")
	if r.code != exitConnect || !strings.Contains(r.stdout, "node n1: follower") || !strings.Contains(r.stdout, "127.0.0.1:1") {
		t.Errorf("one node down: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
