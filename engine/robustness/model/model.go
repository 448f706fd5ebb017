package model

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// states is a set of queues, each a state the history so far may have led
// to; sorted by hash, without duplicates.
type states []*queue

func (s states) hash() uint64 {
	hs := make([]uint64, len(s))
	for i, q := range s {
		hs[i] = q.hash()
	}
	slices.Sort(hs)
	var h uint64 = 1469598103934665603
	for _, x := range hs {
		h = (h ^ x) * 1099511628211
	}
	return h
}

func (s states) equal(o states) bool {
	if len(s) != len(o) {
		return false
	}
	for _, q := range s {
		h, found := q.hash(), false
		for _, p := range o {
			if p.hash() == h && p.equal(q) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Model returns the porcupine model of the queue for histories recorded
// against the server c describes. Its state is a set of possible queues
// (see the package doc); operations are partitioned by Input.Group. It has
// no limits: Check bounds its own use of it.
func Model(c Config) porcupine.Model { return c.model(nil) }

// model is Model whose steps spend b (nil: no limits).
func (c Config) model(b *budget) porcupine.Model {
	return porcupine.Model{
		Partition: partition,
		Init:      func() any { return states{&queue{}} },
		StepContext: func(ctx context.Context, st, in, out any) (bool, any) {
			var next states
			seen := map[uint64][]int{}
			for _, q := range st.(states) {
				if ctx.Err() != nil || b.stopped() != "" { // a check out of time or memory stops inside a step too
					return false, nil
				}
				for _, n := range c.step(q, in.(Input), out.(Output)) {
					h, dup := n.hash(), false
					for _, k := range seen[h] {
						if dup = next[k].equal(n); dup {
							break
						}
					}
					if !dup {
						seen[h] = append(seen[h], len(next))
						next = append(next, n)
					}
				}
			}
			if len(next) == 0 || !b.spend(st.(states), next) {
				return false, nil
			}
			return true, next
		},
		Equal: func(a, b any) bool { return a.(states).equal(b.(states)) },
		Hash:  func(st any) uint64 { return st.(states).hash() },
		DescribeOperation: func(in, out any) string {
			return Describe(in.(Input), out.(Output))
		},
		DescribeState: func(st any) string {
			var b strings.Builder
			for i, q := range st.(states) {
				if i == 3 {
					fmt.Fprintf(&b, "... %d states in all", len(st.(states)))
					break
				}
				if i > 0 {
					b.WriteString("\n| ")
				}
				b.WriteString(q.String())
			}
			return b.String()
		},
	}
}

// partition splits a history by group.
func partition(history []porcupine.Operation) [][]porcupine.Operation {
	by := map[int][]porcupine.Operation{}
	var groups []int
	for _, op := range history {
		g := op.Input.(Input).Group
		if _, ok := by[g]; !ok {
			groups = append(groups, g)
		}
		by[g] = append(by[g], op)
	}
	slices.Sort(groups)
	out := make([][]porcupine.Operation, 0, len(groups))
	for _, g := range groups {
		out = append(out, by[g])
	}
	return out
}

// Op is one recorded operation: its input and output and when it was
// called and returned (nanoseconds on one monotonic clock; Return is
// Never for an outcome not known).
type Op struct {
	Client       int
	Input        Input
	Output       Output
	Call, Return int64
}

// Never is the return time of an operation whose outcome is not known: it
// may take effect at any time after its call.
const Never = int64(1) << 62

// Result is what Check found.
type Result struct {
	// Verdict is porcupine's: Ok, Illegal, or Unknown when the check ran
	// out of time or memory (Limits): not a pass.
	Verdict porcupine.CheckResult
	// Reason says why the verdict is Unknown.
	Reason string
	// States is the most possible queues one state held: how hard the
	// outcomes not known made the search.
	States int
	// IDs lists violations of the id rules (CheckIDs).
	IDs []string
	// Took is how long the check ran.
	Took time.Duration

	info    porcupine.LinearizationInfo
	model   porcupine.Model
	history []porcupine.Operation
}

// OK reports whether the history was accepted.
func (r Result) OK() bool { return r.Verdict == porcupine.Ok && len(r.IDs) == 0 }

// Visualize writes porcupine's HTML rendering of the check (the longest
// linearizable prefix of each partition, and where it stops).
func (r Result) Visualize(w io.Writer) error { return porcupine.Visualize(r.model, r.info, w) }

// Check checks a history against the model for c within lim, and checks
// the ids (CheckIDs). A search stopped by a limit gives Unknown with its
// Reason, even where porcupine would say Illegal (a step refused for the
// limit is no evidence); a linearization found is proof whatever happened.
func Check(c Config, ops []Op, lim Limits) Result {
	start := time.Now()
	b := newBudget(lim, len(ops))
	m := c.model(b)
	hist := make([]porcupine.Operation, len(ops))
	for i, op := range ops {
		hist[i] = porcupine.Operation{ClientId: op.Client, Input: op.Input, Output: op.Output, Call: op.Call, Return: op.Return}
	}
	verdict, info := porcupine.CheckOperationsVerbose(m, hist, b.lim.Within)
	r := Result{Verdict: verdict, IDs: CheckIDs(ops), Took: time.Since(start), States: int(b.peak.Load()),
		info: info, model: Model(c), history: hist}
	switch why := b.stopped(); {
	case verdict == porcupine.Ok:
	case why != "":
		r.Verdict, r.Reason = porcupine.Unknown, why
	case verdict == porcupine.Unknown:
		r.Reason = fmt.Sprintf("the check did not finish within %v", b.lim.Within)
	}
	return r
}
