package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"

	"github.com/stalkd/stalkd/engine/enginetest/inproc"
	"github.com/stalkd/stalkd/engine/node"
	jobsq "github.com/stalkd/stalkd/jobs"
)

// startWithAdmin starts an in-process stalkd with its admin port (a node); it returns the environment stalkctl reads both addresses from.
func startWithAdmin(t *testing.T) (map[string]string, *jobsq.Queue) {
	t.Helper()
	n := inproc.StartNode(t, node.Config{Admin: node.Admin{Addr: "127.0.0.1:0"}})
	return map[string]string{"STALKD_ADDR": n.Addr().String(), "STALKD_ADMIN": "http://" + n.AdminAddr().String()}, n.Queue()
}

// spend reserves job id from tube with go-beanstalk and releases it.
func spend(t *testing.T, c *beanstalk.Conn, tube string, id uint64) {
	t.Helper()
	rid, _, err := beanstalk.NewTubeSet(c, tube).Reserve(5 * time.Second)
	if err != nil || rid != id {
		t.Fatalf("reserve from %s: %d %v, want %d", tube, rid, err, id)
	}
	if err := c.Release(id, 1, 0); err != nil {
		t.Fatal(err)
	}
}

// TestRedriveAgainstStalkd: jobs dead-lettered over TCP show their origin
// and reason in peek (--admin); redrive moves them back chunk by chunk
// with a progress line per chunk, reports the job that remembers no
// origin, and go-beanstalk reserves them again from their origin with the
// same ids; --to and --max; move of one job; the errors.
func TestRedriveAgainstStalkd(t *testing.T) {
	env, q := startWithAdmin(t)
	if err := q.SetPolicy("work", jobsq.Policy{MaxReserves: 1, DeadLetter: "dead"}); err != nil {
		t.Fatal(err)
	}
	c := beanConn(t, env["STALKD_ADDR"])
	work := beanstalk.NewTube(c, "work")
	var ids []uint64
	for i := range 25 {
		id, err := work.Put(fmt.Appendf(nil, "job %d", i), 1, 0, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		spend(t, c, "work", id)
		ids = append(ids, id)
	}
	if _, err := beanstalk.NewTube(c, "dead").Put([]byte("put here by hand"), 1, 0, time.Minute); err != nil {
		t.Fatal(err)
	}

	r := ctlEnv(env, "peek", fmt.Sprint(ids[0]))
	if r.code != 0 || !strings.Contains(r.stdout, "tube: dead\n") ||
		!strings.Contains(r.stdout, "dead-letter-origin: work\n") ||
		!strings.Contains(r.stdout, "dead-letter-reason: max_reserves_released (used up max_reserves and was released)\n") ||
		!strings.Contains(r.stdout, "dead-lettered-at: ") {
		t.Fatalf("peek: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = ctlEnv(env, "--json", "peek", "ready", "-t", "dead")
	var pj struct {
		DeadLetter deadLetterInfo `json:"dead_letter"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &pj) != nil || pj.DeadLetter.Origin != "work" {
		t.Fatalf("peek --json: exit %d %s", r.code, r.stdout)
	}
	noAdmin := map[string]string{"STALKD_ADDR": env["STALKD_ADDR"]}
	if r = ctlEnv(noAdmin, "peek", fmt.Sprint(ids[0])); r.code != 0 || strings.Contains(r.stdout, "dead-letter") {
		t.Errorf("peek without --admin shows the protocol's view only: exit %d\n%s", r.code, r.stdout)
	}

	r = ctlEnv(env, "redrive", "dead", "--chunk", "10")
	if r.code != 0 {
		t.Fatalf("redrive: exit %d %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "redrive dead: 10 of 2") ||
		!strings.HasPrefix(lines[2], "redrive dead: 25 of 25 moved") {
		t.Errorf("progress: a line per chunk, got %q", r.stderr)
	}
	if !strings.HasPrefix(r.stdout, `moved 25 jobs from "dead" in `) || !strings.Contains(r.stdout, `: 25 to "work"`+"\n") ||
		!strings.Contains(r.stdout, `left in "dead": 1 ready, delayed or buried, 0 reserved by workers; 1 remember no origin`) {
		t.Errorf("redrive summary: %q", r.stdout)
	}
	ts := beanstalk.NewTubeSet(c, "work")
	seen := map[uint64]bool{}
	for range ids {
		id, _, err := ts.Reserve(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		seen[id] = true
		if err := c.Release(id, 1, 0); err != nil { // dead-lettered again
			t.Fatal(err)
		}
	}
	for _, id := range ids {
		if !seen[id] {
			t.Errorf("job %d did not come back to work with its id", id)
		}
	}

	// --to and --max, as JSON.
	var out struct {
		Moved int            `json:"moved"`
		To    map[string]int `json:"to"`
		Left  int            `json:"left"`
	}
	r = ctlEnv(env, "--json", "redrive", "dead", "--to", "retry", "--max", "5", "--chunk", "2")
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &out) != nil || out.Moved != 5 || out.To["retry"] != 5 || out.Left != 21 {
		t.Errorf("redrive --to --max: exit %d %s %s", r.code, r.stdout, r.stderr)
	}

	// move
	if r = ctlEnv(env, "move", fmt.Sprint(ids[0]), "parked"); r.code != 0 || !strings.Contains(r.stdout, "moved job") {
		t.Fatalf("move: exit %d %s", r.code, r.stderr)
	}
	st, err := c.StatsJob(ids[0])
	if err != nil || st["tube"] != "parked" {
		t.Errorf("after move: %v %v", st, err)
	}
	if r = ctlEnv(env, "move", fmt.Sprint(ids[0]), "parked"); r.code != 0 || !strings.Contains(r.stdout, "already in") {
		t.Errorf("move again: exit %d %q", r.code, r.stdout)
	}
	rid, _, err := beanstalk.NewTubeSet(c, "parked").Reserve(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if r = ctlEnv(env, "move", fmt.Sprint(rid), "x"); r.code != exitFailure || !strings.Contains(r.stderr, "reserved by a worker") {
		t.Errorf("move of a reserved job: exit %d %q", r.code, r.stderr)
	}
	if r = ctlEnv(env, "move", "999999", "x"); r.code != exitNotFound || !strings.Contains(r.stderr, "job 999999 not found") {
		t.Errorf("move of no job: exit %d %q", r.code, r.stderr)
	}
	if r = ctlEnv(env, "redrive", "nope"); r.code != exitNotFound || !strings.Contains(r.stderr, `tube "nope" not found`) {
		t.Errorf("redrive of no tube: exit %d %q", r.code, r.stderr)
	}
	if r = ctlEnv(env, "redrive", "dead", "--to", "dead"); r.code != exitFailure || !strings.Contains(r.stderr, "to is the tube itself") {
		t.Errorf("redrive into itself: exit %d %q", r.code, r.stderr)
	}
	// Without --admin or $STALKD_ADMIN, the default 127.0.0.1:11380 is
	// asked, and its absence is said with the way to point elsewhere.
	if r = ctlEnv(noAdmin, "redrive", "dead"); r.code != exitConnect || !strings.Contains(r.stderr, "--admin") {
		t.Errorf("redrive without --admin: exit %d %q", r.code, r.stderr)
	}
	if r = ctlEnv(env, "redrive", "dead", "--chunk", "0"); r.code != exitUsage {
		t.Errorf("--chunk 0: exit %d %q", r.code, r.stderr)
	}
	if r = ctlEnv(env, "move", "x", "t"); r.code != exitUsage {
		t.Errorf("move of a bad id: exit %d %q", r.code, r.stderr)
	}
}
