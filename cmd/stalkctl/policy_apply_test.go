package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stalkd/stalkd/engine/admin"
	jobsq "github.com/stalkd/stalkd/jobs"
)

// countingJournal commits every record at once and counts them: a change
// that writes nothing leaves the count alone.
type countingJournal struct{ n atomic.Uint64 }

func (j *countingJournal) Append(jobsq.Record) (uint64, error) { return j.n.Add(1), nil }
func (j *countingJournal) Committed() (uint64, error)          { return j.n.Load(), nil }
func (j *countingJournal) Subscribe(func())                    {}
func (j *countingJournal) File(uint64) int                     { return 0 }

// policyStack is a queue on a manual clock, with a counting journal,
// behind a real admin listener; env names it to stalkctl.
func policyStack(t *testing.T) (*jobsq.Queue, *jobsq.ManualClock, *countingJournal, map[string]string) {
	t.Helper()
	clk := jobsq.NewManualClock(time.Date(2026, 6, 1, 6, 0, 0, 0, time.UTC).UnixNano())
	j := &countingJournal{}
	q := jobsq.New(jobsq.Config{Clock: clk, Journal: j})
	return q, clk, j, map[string]string{"STALKD_ADMIN": serveAdmin(t, admin.Options{Addr: "127.0.0.1:0", Queue: q})}
}

// TestPolicySetMerges: set changes the fields it names and keeps the
// others (the dead letter survives a change of max_ready); --unset removes
// one; --replace sets the whole policy.
func TestPolicySetMerges(t *testing.T) {
	q, _, _, env := policyStack(t)
	mustRun := func(args ...string) {
		t.Helper()
		if r := ctlEnv(env, args...); r.code != 0 {
			t.Fatalf("%v: exit %d %q", args, r.code, r.stderr)
		}
	}
	mustRun("policy", "set", "t", "--max-reserves", "5", "--dead-letter", "t-dead")
	mustRun("policy", "set", "t", "--max-ready", "100")
	if p, _ := q.Policy("t"); !reflect.DeepEqual(p, jobsq.Policy{MaxReserves: 5, DeadLetter: "t-dead", MaxReady: 100}) {
		t.Fatalf("after a merge: %+v", p)
	}
	mustRun("policy", "set", "t", "--unset", "max_ready")
	if p, _ := q.Policy("t"); !reflect.DeepEqual(p, jobsq.Policy{MaxReserves: 5, DeadLetter: "t-dead"}) {
		t.Fatalf("after --unset: %+v", p)
	}
	mustRun("policy", "set", "t", "--max-ready", "7", "--replace")
	if p, _ := q.Policy("t"); !reflect.DeepEqual(p, jobsq.Policy{MaxReady: 7}) {
		t.Fatalf("after --replace: %+v", p)
	}
}

// TestPolicyListApplyRoundTrip: policy list's output, given to apply,
// changes nothing: no journal record, the same policies, the schedules'
// progress kept. Bodies YAML would misread and zones survive the trip.
func TestPolicyListApplyRoundTrip(t *testing.T) {
	q, clk, j, env := policyStack(t)
	awkward := []string{"123", "true", "null", "~", "", "- x", "a: b", "#c", "2026-01-01", "line\nbreak", "\u00e9 \"q\" 'q'", "0x1F", "1e3"}
	var sched []jobsq.Schedule
	for i, b := range awkward {
		sched = append(sched, jobsq.Schedule{Cron: "@every 1m", Body: b, Priority: uint32(i), TTR: uint32(i)})
	}
	sched = append(sched, jobsq.Schedule{Cron: "0 9 * * MON-FRI", TZ: "Europe/Berlin", Body: "standup", Priority: 1024, TTR: 60})
	policies := map[string]jobsq.Policy{
		"emails":   {MaxReserves: 5, DeadLetter: "emails-dead", MaxReady: 100, ReserveRate: 2.5},
		"reports":  {Schedule: sched},
		"a/b;$(c)": {ReserveRate: 0.001},
		"123":      {MaxReady: 1},
	}
	for tube, p := range policies {
		if err := q.SetPolicy(tube, p); err != nil {
			t.Fatal(err)
		}
	}
	clk.Advance(90 * time.Second)
	q.Tick() // the @every schedules fire: progress to keep
	_, runsBefore, _ := q.PolicyRuns("reports")
	records := j.n.Load()

	for _, format := range []string{"yaml", "json"} {
		args := []string{"policy", "list"}
		if format == "json" {
			args = append([]string{"--json"}, args...)
		}
		r := ctlEnv(env, args...)
		if r.code != 0 {
			t.Fatalf("list: exit %d %q", r.code, r.stderr)
		}
		file := filepath.Join(t.TempDir(), "policies."+format)
		writeFile(t, file, r.stdout)
		r = ctlEnv(env, "policy", "apply", "-f", file)
		if r.code != 0 {
			t.Fatalf("apply -f %s: exit %d %q\n%s", format, r.code, r.stderr, r.stdout)
		}
		if !strings.Contains(r.stdout, ": 0 set, 4 unchanged, 0 removed, 0 kept") {
			t.Errorf("apply -f %s of list's output:\n%s", format, r.stdout)
		}
		if got := q.Policies(); !reflect.DeepEqual(got, policies) {
			t.Errorf("apply -f %s changed the policies:\n got  %+v\n want %+v", format, got, policies)
		}
		if n := j.n.Load(); n != records {
			t.Errorf("apply -f %s wrote %d journal records, want none", format, n-records)
		}
		if _, runs, _ := q.PolicyRuns("reports"); !reflect.DeepEqual(runs, runsBefore) {
			t.Errorf("apply -f %s moved the schedules' progress", format)
		}
	}
}

// TestPolicyApply: apply sets what differs, keeps or (--prune) removes
// the tubes the file leaves out, and --dry-run only shows it; a file with
// a bad entry applies nothing and names every bad entry.
func TestPolicyApply(t *testing.T) {
	q, _, _, env := policyStack(t)
	for tube, p := range map[string]jobsq.Policy{"same": {MaxReady: 1}, "differs": {MaxReady: 2}, "gone": {MaxReady: 3}} {
		if err := q.SetPolicy(tube, p); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "p.yaml")
	writeFile(t, file, "same: {max_ready: 1}\ndiffers: {max_ready: 20, dead_letter: x, max_reserves: 2}\n"+
		"new:\n  schedule:\n    - {cron: '@daily', body: b}\nempty: {}\n")

	r := ctlEnv(env, "policy", "apply", "-f", file, "--prune", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "would set \"differs\"") || !strings.Contains(r.stdout, "would remove \"gone\"") ||
		!strings.Contains(r.stdout, "2 set, 2 unchanged, 1 removed, 0 kept (dry run: nothing changed)") {
		t.Fatalf("--dry-run: exit %d %q\n%s", r.code, r.stderr, r.stdout)
	}
	if len(q.Policies()) != 3 {
		t.Fatalf("a dry run changed the policies: %v", q.Policies())
	}

	r = ctlEnv(env, "--json", "policy", "apply", "-f", file)
	var res applyResult
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil ||
		!reflect.DeepEqual(res.Set, []string{"differs", "new"}) || !reflect.DeepEqual(res.Kept, []string{"gone"}) ||
		!reflect.DeepEqual(res.Unchanged, []string{"empty", "same"}) {
		t.Fatalf("apply: exit %d %q\n%s", r.code, r.stderr, r.stdout)
	}
	want := map[string]jobsq.Policy{"same": {MaxReady: 1}, "differs": {MaxReady: 20, DeadLetter: "x", MaxReserves: 2},
		"gone": {MaxReady: 3}, "new": {Schedule: []jobsq.Schedule{{Cron: "@daily", Body: "b", Priority: 1024, TTR: 60}}}}
	if got := q.Policies(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after apply: %+v", got)
	}
	if r = ctlEnv(env, "policy", "apply", "-f", file, "--prune"); r.code != 0 || !strings.Contains(r.stdout, "0 set, 4 unchanged, 1 removed") {
		t.Fatalf("apply --prune: exit %d %q\n%s", r.code, r.stderr, r.stdout)
	}
	if _, ok := q.Policy("gone"); ok {
		t.Fatal("--prune kept a policy the file leaves out")
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	writeFile(t, bad, "aaa: {max_ready: 5}\nloop: {max_reserves: 1, dead_letter: loop}\nzzz: {schedule: [{cron: '0 0 31 2 *'}]}\n")
	before := q.Policies()
	r = ctlEnv(env, "policy", "apply", "-f", bad)
	if r.code != exitFailure || !strings.Contains(r.stderr, "2 of 3 entries refused, nothing applied") ||
		!strings.Contains(r.stderr, `tube "loop": dead_letter`) || !strings.Contains(r.stderr, `tube "zzz": schedule[0].cron`) {
		t.Fatalf("a bad file: exit %d %q", r.code, r.stderr)
	}
	if got := q.Policies(); !reflect.DeepEqual(got, before) {
		t.Fatalf("a bad file applied something: %+v", got)
	}
}

// TestPolicyGetShowsRuns: get prints each schedule's last and next run as
// a comment above it (--json: the API's fields), and what it prints can be
// set again as it is.
func TestPolicyGetShowsRuns(t *testing.T) {
	q, clk, _, env := policyStack(t) // 2026-06-01 06:00 UTC
	p := jobsq.Policy{Schedule: []jobsq.Schedule{
		{Cron: "@every 30m", Body: "tick", Priority: 1024, TTR: 60},
		{Cron: "0 9 * * *", TZ: "Europe/Berlin", Body: "daily", Priority: 1024, TTR: 60},
	}}
	if err := q.SetPolicy("r", p); err != nil {
		t.Fatal(err)
	}
	clk.Advance(31 * time.Minute)
	q.Tick()
	r := ctlEnv(env, "policy", "get", "r")
	want := "r:\n  schedule:\n" +
		"    # last run 2026-06-01T06:30:00Z, next run 2026-06-01T07:00:00Z\n" +
		"    - cron: '@every 30m'\n      body: tick\n      priority: 1024\n      ttr: 60\n" +
		"    # last run never, next run 2026-06-01T09:00:00+02:00\n" +
		"    - cron: 0 9 * * *\n      tz: Europe/Berlin\n      body: daily\n      priority: 1024\n      ttr: 60\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("policy get: exit %d %q\n%s\nwant\n%s", r.code, r.stderr, r.stdout, want)
	}
	r = ctlEnv(env, "--json", "policy", "get", "r")
	if r.code != 0 || !strings.Contains(r.stdout, `"last_run": "2026-06-01T06:30:00Z"`) || !strings.Contains(r.stdout, `"last_run": null`) {
		t.Fatalf("policy get --json: exit %d\n%s", r.code, r.stdout)
	}
	file := filepath.Join(t.TempDir(), "r.yaml")
	writeFile(t, file, ctlEnv(env, "policy", "get", "r").stdout)
	if r = ctlEnv(env, "policy", "set", "r", "-f", file, "--replace"); r.code != 0 {
		t.Fatalf("set -f of get's output: exit %d %q", r.code, r.stderr)
	}
	if got, _ := q.Policy("r"); !reflect.DeepEqual(got, p) {
		t.Fatalf("get, set -f changed the policy: %+v", got)
	}
}
