package main

import (
	"strings"
	"testing"

	"github.com/stalkd/stalkd/engine/admin"
	jobsq "github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// TestPolicyAgainstAdmin: stalkctl policy against the real admin listener
// and queue: set from flags and a file, get and list print what the queue
// holds, a refused policy names the field (exit 1) and changes nothing, rm
// removes.
func TestPolicyAgainstAdmin(t *testing.T) {
	q := jobsq.New(jobsq.Config{})
	env := map[string]string{"STALKD_ADMIN": serveAdmin(t, admin.Options{Addr: "127.0.0.1:0", Queue: q})}

	if r := ctlEnv(env, "policy", "set", "emails", "--max-reserves", "5", "--dead-letter", "emails-dead"); r.code != 0 {
		t.Fatalf("policy set: exit %d %q", r.code, r.stderr)
	}
	file := t.TempDir() + "/hooks.yaml"
	writeFile(t, file, "max_ready: 100\nschedule:\n  - cron: '*/5 * * * *'\n    body: tick\n    ttr: 30\n")
	if r := ctlEnv(env, "policy", "set", "hooks", "-f", file, "--reserve-rate", "2.5"); r.code != 0 {
		t.Fatalf("policy set -f: exit %d %q", r.code, r.stderr)
	}
	want := map[string]jobsq.Policy{
		"emails": {MaxReserves: 5, DeadLetter: "emails-dead"},
		"hooks": {MaxReady: 100, ReserveRate: 2.5,
			Schedule: []jobsq.Schedule{{Cron: "*/5 * * * *", Body: "tick", Priority: 1024, TTR: 30}}},
	}
	if got := q.Policies(); !equalJSON(got, want) {
		t.Fatalf("the queue holds %+v, want %+v", got, want)
	}

	r0 := ctlEnv(env, "policy", "get", "emails")
	if r0.code != 0 || r0.stdout != "emails:\n  max_reserves: 5\n  dead_letter: emails-dead\n" {
		t.Errorf("policy get: exit %d %q", r0.code, r0.stdout)
	}
	// list prints a --policies file.
	r := ctlEnv(env, "policy", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "hooks:\n") || !strings.Contains(r.stdout, "cron: '*/5 * * * *'") {
		t.Errorf("policy list: exit %d %q", r.code, r.stdout)
	}

	// get, edit, set -f: the printed {tube: policy} is read back as the policy.
	got := t.TempDir() + "/emails.yaml"
	writeFile(t, got, strings.Replace(r0.stdout, "max_reserves: 5", "max_reserves: 6", 1))
	if r = ctlEnv(env, "policy", "set", "emails", "-f", got); r.code != 0 {
		t.Fatalf("set -f of get's output: exit %d %q", r.code, r.stderr)
	}
	if p, _ := q.Policy("emails"); p.MaxReserves != 6 || p.DeadLetter != "emails-dead" {
		t.Errorf("after the round trip: %+v", p)
	}

	r = ctlEnv(env, "policy", "set", "emails", "--dead-letter", "emails-dead", "--replace")
	if r.code != exitFailure || !strings.Contains(r.stderr, "dead_letter") {
		t.Errorf("a refused policy: exit %d %q", r.code, r.stderr)
	}
	if p, _ := q.Policy("emails"); p.MaxReserves != 6 {
		t.Errorf("the refused policy changed the tube's: %+v", p)
	}
	if r = ctlEnv(env, "policy", "rm", "emails"); r.code != 0 {
		t.Errorf("policy rm: exit %d %q", r.code, r.stderr)
	}
	if _, ok := q.Policy("emails"); ok {
		t.Error("rm left the policy")
	}
	if r = ctlEnv(env, "policy", "get", "emails"); r.code != exitNotFound {
		t.Errorf("get after rm: exit %d %q", r.code, r.stderr)
	}
}

// leaderCluster is an admin.Cluster of a cluster of two fakes: the leader
// n1 serves q; the follower n2 has no queue and names n1.
type leaderCluster struct {
	id string
	q  *jobsq.Queue // nil on the follower
}

func (c leaderCluster) Status() cluster.Status {
	st := cluster.Status{ID: c.id, State: "follower", Leader: "n1", LeaderAddr: "10.0.0.1:11310"}
	if c.q != nil {
		st.State = "leader"
	}
	return st
}
func (c leaderCluster) Queue() *jobsq.Queue        { return c.q }
func (c leaderCluster) AddVoter(_, _ string) error { return cluster.ErrNotLeader }
func (c leaderCluster) RemoveServer(string) error  { return cluster.ErrNotLeader }

// TestPolicyThroughFollower: with every node's --admin, a policy set asked
// of a follower (421 naming the leader) goes on to the leader; with the
// follower's alone it is exit 7 naming the leader.
func TestPolicyThroughFollower(t *testing.T) {
	q := jobsq.New(jobsq.Config{})
	leader := startAdmin(t, leaderCluster{id: "n1", q: q})
	follower := startAdmin(t, leaderCluster{id: "n2"})
	env := map[string]string{"STALKD_ADMIN_TOKEN": clusterToken}

	r := ctlEnv(env, "policy", "set", "emails", "--max-ready", "9", "--admin", follower)
	if r.code != exitNotLeader || !strings.Contains(r.stderr, "n1") {
		t.Errorf("policy set on a follower alone: exit %d %q", r.code, r.stderr)
	}
	if _, ok := q.Policy("emails"); ok {
		t.Fatal("the follower's refusal applied the policy")
	}
	r = ctlEnv(env, "policy", "set", "emails", "--max-ready", "9", "--admin", follower+","+leader)
	if r.code != 0 || !strings.Contains(r.stderr, "sending policy to the leader n1") {
		t.Fatalf("policy set through the follower: exit %d %q", r.code, r.stderr)
	}
	if p, ok := q.Policy("emails"); !ok || p.MaxReady != 9 {
		t.Errorf("the leader's queue holds %+v %v", p, ok)
	}
}
