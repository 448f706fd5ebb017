package robustness

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/stalkd/stalkd/engine/robustness/model"
)

// plan is how big each history is.
type plan struct {
	groups, tubes, clients int
	pace                   time.Duration // a client's pause between commands: up to this
	before, after          time.Duration // traffic before the fault, and after healing
	check                  model.Limits  // the checker's time and memory per history
}

var shortPlan = plan{groups: 2, tubes: 2, clients: 3, pace: 20 * time.Millisecond,
	before: 700 * time.Millisecond, after: 700 * time.Millisecond,
	check: model.Limits{Within: 30 * time.Second, MaxBytes: 128 << 20}}

var longPlan = plan{groups: 3, tubes: 2, clients: 3, pace: 10 * time.Millisecond,
	before: 2 * time.Second, after: 2 * time.Second,
	check: model.Limits{Within: 3 * time.Minute, MaxBytes: 512 << 20}}

// checking lets one check run at a time in the test process: each is
// bounded (plan.check), and so is their sum.
var checking sync.Mutex

// outcome is one history's result.
type outcome struct {
	Fault     string        `json:"fault"`
	Cluster   bool          `json:"cluster"`
	Seed      uint64        `json:"seed"`
	Start     time.Time     `json:"start"` // operation times are from here
	History   int           `json:"history"`
	Ops       int           `json:"ops"`
	Unknown   int           `json:"unknown"`
	CheckTook time.Duration `json:"check_took_ns"`
	Took      time.Duration `json:"took_ns"` // the whole history: traffic, fault, sweep, check
	// Verdict is the checker's: ok, illegal (not linearizable), or
	// undecided (a limit stopped it: not a pass; Undecided says why).
	Verdict    string   `json:"verdict"`
	Undecided  string   `json:"undecided,omitempty"`
	States     int      `json:"states"` // the most possible queues one state of the check held
	Notes      []string `json:"notes"`
	Violations []string `json:"violations"`
	Saved      string   `json:"saved,omitempty"`
}

// runHistory runs one history on sys: traffic, the fault, healing, more
// traffic, the sweep, then the check. A failing one is saved under out.
func runHistory(t testing.TB, sys *system, fl fault, seed uint64, num int, p plan, out string) outcome {
	res := outcome{Fault: fl.name, Cluster: sys.cluster, Seed: seed, History: num}
	h := newHistory(num, p.groups, p.tubes)
	res.Start = h.start
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		runWorkers(h, sys, p.clients, seed, p.pace, stop)
	}()
	time.Sleep(p.before)
	fr := &faultRun{sys: sys, rng: rand.New(rand.NewPCG(seed, 1<<40))}
	if err := fl.inject(fr); err != nil {
		res.Violations = append(res.Violations, "fault "+fl.name+": "+err.Error())
	}
	res.Notes = fr.notes
	if sys.cluster && sys.snapshotsInstalled() > 0 {
		res.Notes = append(res.Notes, "a follower installed a snapshot: its raft links may bypass the proxies")
	}
	sys.heal()
	for _, n := range sys.nodes {
		if !n.running() {
			if err := n.start(); err != nil {
				res.Violations = append(res.Violations, err.Error())
			}
		}
	}
	if err := sys.serving(60 * time.Second); err != nil {
		res.Violations = append(res.Violations, err.Error())
	}
	time.Sleep(p.after)
	close(stop)
	wg.Wait()
	if err := sweep(h, sys.nodes[sweepNode(sys)]); err != nil {
		if sys.cluster { // a leader change meanwhile: the sweep's last operation is recorded as unknown
			res.Notes = append(res.Notes, "sweep cut short: "+err.Error())
		} else {
			res.Violations = append(res.Violations, err.Error())
		}
	}
	res.Ops, res.Unknown = h.counts()
	// Each queue rebuilt from a log meanwhile (a restart, a new leader) may
	// have put buried jobs back in id order: a Restore per group, in the
	// second before the runner read the line that says so.
	for _, at := range sys.restoresSince(h.start) {
		ret := int64(at.Sub(h.start))
		for g := range h.groups {
			h.add(record{Op: model.Op{Client: -100 - g, Call: max(0, ret-int64(time.Second)), Return: ret,
				Input: model.Input{Kind: model.Restore, Group: g}, Output: model.Output{Unknown: true}}, Cmd: "restore"})
		}
	}
	for _, b := range h.badReplies() {
		res.Violations = append(res.Violations, "a reply word 1.12 does not send: "+b)
	}
	checking.Lock()
	r := model.Check(model.Config{Cluster: sys.cluster}, h.ops(), p.check)
	checking.Unlock()
	res.CheckTook, res.States, res.Took = r.Took, r.States, time.Since(h.start)
	switch r.Verdict {
	case porcupine.Ok:
		res.Verdict = "ok"
	case porcupine.Illegal:
		res.Verdict = "illegal"
		res.Violations = append(res.Violations, "not linearizable: no order of the operations explains every reply (see history.html)")
	default:
		res.Verdict, res.Undecided = "undecided", r.Reason
		res.Violations = append(res.Violations, "undecided, not a pass: "+r.Reason)
	}
	res.Violations = append(res.Violations, r.IDs...)
	if len(res.Violations) > 0 || os.Getenv("STALKD_ROBUST_KEEP") != "" {
		res.Saved = save(t, out, sys, h, r, &res)
	}
	return res
}

// sweepNode is a running node to sweep through: the leader if known.
func sweepNode(sys *system) int {
	if l := sys.leader(); l >= 0 {
		return l
	}
	for i, n := range sys.nodes {
		if n.running() {
			return i
		}
	}
	return 0
}

// save writes what a failing history needs to be understood and replayed:
// its outcome (with the seed), every operation as sent and heard, the
// checker's rendering and the nodes' logs.
func save(t testing.TB, out string, sys *system, h *history, r model.Result, res *outcome) string {
	dir := filepath.Join(out, fmt.Sprintf("%s-h%d-seed%d", res.Fault, res.History, res.Seed))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Errorf("save %s: %v", dir, err)
		return ""
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Errorf("save %s: %v", name, err)
		}
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	write("outcome.json", b)
	h.mu.Lock()
	var lines []string
	for _, rec := range h.records {
		b, _ := json.Marshal(rec)
		lines = append(lines, string(b))
	}
	h.mu.Unlock()
	write("history.jsonl", []byte(strings.Join(lines, "\n")+"\n"))
	write("explain.txt", []byte(r.Explain()))
	if f, err := os.Create(filepath.Join(dir, "history.html")); err == nil {
		_ = r.Visualize(f)
		f.Close()
	}
	for _, n := range sys.nodes {
		if b, err := os.ReadFile(n.logPath); err == nil {
			write(n.id+".log", b)
		}
	}
	write("README", []byte(fmt.Sprintf("replay: STALKD_ROBUST_SEED=%d STALKD_ROBUST_FAULTS=%s go test -run TestRobustness -v ./engine/robustness/\n"+
		"recheck: STALKD_ROBUST_RECHECK=%s go test -run TestRecheck -v ./engine/robustness/\n",
		res.Seed, res.Fault, filepath.Join(dir, "history.jsonl"))))
	return dir
}
