package robustness

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/robustness/model"
)

// TestRobustness is the suite: random concurrent clients against a single
// node (-b) and a three-node cluster (node TLS), one fault per history,
// every history checked with the model. By default a short pass (each
// fault once, small histories: part of make test); with
// STALKD_ROBUST_MINUTES=N it goes round the faults, in a seeded random
// order and on a fresh system each round, for N minutes.
//
// STALKD_ROBUST_SEED fixes the seed (a failing history prints its own, and
// STALKD_ROBUST_SEED=that STALKD_ROBUST_FAULTS=its-fault replays it);
// STALKD_ROBUST_FAULTS runs only the named faults (comma-separated);
// STALKD_ROBUST_DIR is where failing histories are saved (default: a new
// directory under the system's temporary directory, printed);
// STALKD_ROBUST_KEEP=1 saves every history.
func TestRobustness(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real stalkd processes under faults")
	}
	t.Parallel()
	bin := stalkdBinary(t, "failpoints")
	cfg := suiteConfig(t)
	var mu sync.Mutex
	var all []outcome
	collect := func(o outcome) {
		mu.Lock()
		all = append(all, o)
		mu.Unlock()
	}
	t.Cleanup(func() { report(t, cfg, all) })
	// The single node and two clusters (each with half the cluster's
	// faults) run side by side: the pass is bound by waiting (elections,
	// fault durations), not by the CPU.
	for _, sh := range []struct {
		name    string
		cluster bool
		shard   int
	}{{"single", false, 0}, {"cluster-a", true, 0}, {"cluster-b", true, 1}} {
		base := cfg.seed // a history's seed: base + its number in the shard
		if !cfg.replay {
			base += uint64(len(sh.name)+sh.shard) << 40 // shards apart
		}
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			var list []fault
			k := 0
			for _, f := range faults {
				if f.cluster != sh.cluster || (len(cfg.only) > 0 && !slices.Contains(cfg.only, f.name)) {
					continue
				}
				if !sh.cluster || k%2 == sh.shard {
					list = append(list, f)
				}
				k++
			}
			if len(list) == 0 {
				t.Skip("no fault selected")
			}
			runRounds(t, bin, sh.cluster, list, cfg, base, collect)
		})
	}
}

// config is the suite's settings, from the environment.
type config struct {
	seed     uint64
	replay   bool      // a seed and one fault: that history's seed is the seed
	deadline time.Time // zero: one round
	only     []string
	out      string
	plan     plan
}

func suiteConfig(t *testing.T) config {
	c := config{plan: shortPlan, seed: uint64(time.Now().UnixNano())}
	if s := os.Getenv("STALKD_ROBUST_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "STALKD_ROBUST_SEED")
		c.seed = v
	}
	if m := os.Getenv("STALKD_ROBUST_MINUTES"); m != "" {
		v, err := strconv.ParseFloat(m, 64)
		require.NoError(t, err, "STALKD_ROBUST_MINUTES")
		c.deadline = time.Now().Add(time.Duration(v * float64(time.Minute)))
		c.plan = longPlan
	}
	if f := os.Getenv("STALKD_ROBUST_FAULTS"); f != "" {
		c.only = strings.Split(f, ",")
	}
	c.replay = os.Getenv("STALKD_ROBUST_SEED") != "" && len(c.only) == 1
	c.out = os.Getenv("STALKD_ROBUST_DIR")
	if c.out == "" {
		dir, err := os.MkdirTemp("", "stalkd-robustness-")
		require.NoError(t, err)
		c.out = dir
	}
	t.Logf("seed %d; failing histories are saved under %s", c.seed, c.out)
	return c
}

// runRounds runs each fault of list once per round, on a fresh system per
// round, until the deadline (one round without one).
func runRounds(t *testing.T, bin string, cluster bool, list []fault, cfg config, base uint64, collect func(outcome)) {
	num := 0
	for round := 0; round == 0 || time.Now().Before(cfg.deadline); round++ {
		order := slices.Clone(list)
		if round > 0 {
			r := newRand(base + uint64(round))
			r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		}
		root := t.TempDir()
		var sys *system
		var err error
		if cluster {
			sys, err = startCluster(t, root, bin)
		} else {
			sys, err = startSingle(t, root, bin)
		}
		require.NoError(t, err)
		for _, f := range order {
			if round > 0 && time.Now().After(cfg.deadline) {
				break
			}
			seed := base + uint64(num)
			o := runHistory(t, sys, f, seed, num, cfg.plan, cfg.out)
			num++
			collect(o)
			t.Logf("%-26s seed %d: %v, %d ops (%d unknown), %s in %v (%d states at most); %s", f.name, seed,
				o.Took.Round(100*time.Millisecond), o.Ops, o.Unknown, o.Verdict, o.CheckTook.Round(time.Millisecond), o.States,
				strings.Join(o.Notes, "; "))
			for _, v := range o.Violations {
				t.Errorf("%s (seed %d): %s", f.name, seed, v)
			}
			if o.Saved != "" && len(o.Violations) > 0 {
				t.Errorf("%s: history saved in %s", f.name, o.Saved)
			}
		}
		sys.stop()
	}
}

// report logs the run's figures and writes them to summary.json.
func report(t *testing.T, cfg config, all []outcome) {
	var ops, unknown, violations, undecided, states int
	var longest time.Duration
	kinds := map[string]int{}
	for _, o := range all {
		ops += o.Ops
		unknown += o.Unknown
		violations += len(o.Violations)
		longest = max(longest, o.CheckTook)
		states = max(states, o.States)
		kinds[o.Fault]++
		if o.Verdict == "undecided" {
			undecided++
		}
	}
	sum := map[string]any{"seed": cfg.seed, "histories": len(all), "operations": ops, "unknown_outcomes": unknown,
		"faults": kinds, "violations": violations, "undecided_checks": undecided, "longest_check": longest.String(),
		"most_states": states}
	b, _ := json.MarshalIndent(sum, "", "  ")
	_ = os.WriteFile(filepath.Join(cfg.out, "summary.json"), b, 0o644)
	t.Logf("robustness: %s", b)
}

// TestRecheck checks a saved history again (STALKD_ROBUST_RECHECK names its
// history.jsonl): what the checker says does not depend on the run.
func TestRecheck(t *testing.T) {
	path := os.Getenv("STALKD_ROBUST_RECHECK")
	if path == "" {
		t.Skip("STALKD_ROBUST_RECHECK names a saved history.jsonl")
	}
	var o outcome
	b, err := os.ReadFile(filepath.Join(filepath.Dir(path), "outcome.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &o))
	ops := readHistory(t, path)
	lim := model.Limits{Within: 10 * time.Minute, MaxBytes: 1 << 30}
	if d, err := time.ParseDuration(os.Getenv("STALKD_ROBUST_CHECK_WITHIN")); err == nil {
		lim.Within = d
	}
	r := model.Check(model.Config{Cluster: o.Cluster}, ops, lim)
	t.Logf("%d operations: %v %s, ids %v, %d states at most, in %v\n%s", len(ops), r.Verdict, r.Reason, r.IDs,
		r.States, r.Took, r.Explain())
	out, err := os.Create(filepath.Join(filepath.Dir(path), "recheck.html"))
	require.NoError(t, err)
	defer out.Close()
	require.NoError(t, r.Visualize(out))
	require.True(t, r.OK(), "the history is not linearizable (recheck.html)")
}

// readHistory reads a saved history.jsonl into the operations the model
// checks (as history.ops does).
func readHistory(t *testing.T, path string) []model.Op {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var ops []model.Op
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r record
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		if r.Read && r.Output.Unknown {
			continue
		}
		ops = append(ops, r.Op)
	}
	slices.SortStableFunc(ops, func(a, b model.Op) int { return int(a.Call - b.Call) })
	return ops
}
