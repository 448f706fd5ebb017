package model

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
)

// Explain describes, for each partition that failed, where the checker
// got stuck: the end of the longest order it found that explains the
// replies (with the states it leads to) and the operations, by call time,
// that none of those states explains next. Empty when the history passed.
func (r Result) Explain() string {
	if r.Verdict != porcupine.Illegal {
		return ""
	}
	var b strings.Builder
	for p, lins := range r.info.PartialLinearizationsOperations() {
		if len(lins) == 0 {
			continue
		}
		all := r.partition(p)
		longest := slices.MaxFunc(lins, func(a, b []porcupine.Operation) int { return len(a) - len(b) })
		if len(longest) == len(all) {
			continue // this partition passed
		}
		in := map[string]bool{}
		for _, op := range longest {
			in[key(op)] = true
		}
		fmt.Fprintf(&b, "partition %d: %d operations, the longest explained order has %d; it ends:\n", p, len(all), len(longest))
		for _, op := range longest[max(0, len(longest)-12):] {
			fmt.Fprintf(&b, "  [%d..%s] %s\n", op.Call, ret(op.Return), Describe(op.Input.(Input), op.Output.(Output)))
		}
		st := r.model.Init()
		for k, op := range longest {
			ok, next := r.model.StepContext(context.Background(), st, op.Input, op.Output)
			if !ok {
				fmt.Fprintf(&b, "  (replaying it fails at step %d: %s)\n", k, Describe(op.Input.(Input), op.Output.(Output)))
				break
			}
			st = next
		}
		fmt.Fprintf(&b, "  states then:\n    %s\n", strings.ReplaceAll(r.model.DescribeState(st), "\n", "\n    "))
		fmt.Fprintf(&b, "  next operations not explained (by call time):\n")
		k := 0
		for _, op := range all {
			if in[key(op)] {
				continue
			}
			ok, _ := r.model.StepContext(context.Background(), st, op.Input, op.Output)
			fmt.Fprintf(&b, "  [%d..%s] %s (explained next: %v)\n", op.Call, ret(op.Return), Describe(op.Input.(Input), op.Output.(Output)), ok)
			if k++; k == 8 {
				break
			}
		}
	}
	return b.String()
}

func ret(r int64) string {
	if r >= Never {
		return "never"
	}
	return fmt.Sprint(r)
}

func key(op porcupine.Operation) string {
	return fmt.Sprintf("%d/%d/%v", op.ClientId, op.Call, op.Input)
}

// partition returns partition p of the checked history, by call time.
func (r Result) partition(p int) []porcupine.Operation {
	parts := partition(r.history)
	if p >= len(parts) {
		return nil
	}
	ops := slices.Clone(parts[p])
	slices.SortStableFunc(ops, func(a, b porcupine.Operation) int { return cmpInt(a.Call, b.Call) })
	return ops
}
