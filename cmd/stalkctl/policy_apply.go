package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
)

// policy apply -f FILE [--prune] [--dry-run]: make the server's policies
// those of a file in the --policies shape (tube name -> policy; what
// policy list prints).
//
// Every entry is checked by the server first (PUT ?dry_run=true: the
// node's own rules, no change): one bad entry and nothing is applied, and
// every bad entry is reported. Then each tube whose policy differs from
// the file's is set whole (PUT), in name order; a tube already as the file
// says is not written at all, so `policy list > f; policy apply -f f`
// changes nothing. A tube the file leaves out keeps its policy, unless
// --prune: then it is removed (the file is the whole truth). An entry that
// is null or {} means no policy. --dry-run stops after the check and shows
// what would change.
//
// The tubes are set one after another, not in one transaction: a failure
// midway (a lost leader, the journal) leaves the ones before it applied,
// and the error says which were and were not.

// applyResult is what apply did (or would do, with --dry-run).
type applyResult struct {
	File      string   `json:"file"`
	DryRun    bool     `json:"dry_run"`
	Set       []string `json:"set"`
	Unchanged []string `json:"unchanged"`
	Removed   []string `json:"removed"`
	Kept      []string `json:"kept"` // not in the file; kept (no --prune)
}

func (r *applyResult) json() any { return r }

func (r *applyResult) print(w io.Writer) {
	words := [4]string{"set", "unchanged", "removed", "kept"}
	if r.DryRun {
		words = [4]string{"would set", "unchanged", "would remove", "would keep"}
	}
	for _, l := range []struct {
		word, note string
		tubes      []string
	}{{words[0], "", r.Set}, {words[1], "", r.Unchanged}, {words[2], "", r.Removed},
		{words[3], " (not in the file; --prune removes it)", r.Kept}} {
		for _, t := range l.tubes {
			fmt.Fprintf(w, "%s %q%s\n", l.word, t, l.note)
		}
	}
	fmt.Fprintf(w, "%s: %d set, %d unchanged, %d removed, %d kept", r.File, len(r.Set), len(r.Unchanged), len(r.Removed), len(r.Kept))
	if r.DryRun {
		io.WriteString(w, " (dry run: nothing changed)")
	}
	io.WriteString(w, "\n")
}

// applyPolicies runs policy apply.
func applyPolicies(ctx context.Context, a *app, h *adminClient, inv *invocation) (result, error) {
	name := inv.policy.file
	file, err := readPolicyFile(a, name)
	if err != nil {
		return nil, err
	}
	cur, err := listPolicies(ctx, h)
	if err != nil {
		return nil, err
	}
	want, err := checkAll(ctx, h, name, file)
	if err != nil {
		return nil, err
	}
	r := &applyResult{File: name, DryRun: inv.policy.dryRun, Set: []string{}, Unchanged: []string{}, Removed: []string{}, Kept: []string{}}
	for _, tube := range sortedKeys(want) {
		_, had := cur[tube]
		switch {
		case isEmptyPolicy(want[tube]) && !had, had && sameJSON(want[tube], cur[tube]):
			r.Unchanged = append(r.Unchanged, tube)
		case isEmptyPolicy(want[tube]):
			r.Removed = append(r.Removed, tube)
		default:
			r.Set = append(r.Set, tube)
		}
	}
	for _, tube := range sortedKeys(cur) {
		if _, ok := want[tube]; !ok {
			if inv.policy.prune {
				r.Removed = append(r.Removed, tube)
			} else {
				r.Kept = append(r.Kept, tube)
			}
		}
	}
	slices.Sort(r.Removed)
	if r.DryRun {
		return r, nil
	}
	return r, r.carryOut(ctx, h, want)
}

// checkAll asks the server to check every entry and returns each tube's
// policy as the server would set it; on any refusal, all of them, with
// nothing applied.
func checkAll(ctx context.Context, h *adminClient, name string, file map[string]any) (map[string]json.RawMessage, error) {
	want := make(map[string]json.RawMessage, len(file))
	var refusals []string
	for _, tube := range sortedKeys(file) {
		v := file[tube]
		if v == nil {
			v = map[string]any{} // null: no policy
		}
		var norm json.RawMessage
		hdr, err := h.call(ctx, http.MethodPut, policyPath(tube)+"?dry_run=true", v, &norm)
		var ae *adminError
		switch {
		case err == nil && hdr.Get("Stalkd-Dry-Run") != "true":
			return nil, fmt.Errorf("policy apply: the server set the policy of tube %q instead of checking it "+
				"(a stalkd without dry runs): stopped there; upgrade the server, or set each policy with policy set --replace", tube)
		case errors.As(err, &ae) && ae.status == http.StatusBadRequest:
			refusals = append(refusals, fmt.Sprintf("  tube %q: %s", tube, ae.message))
		case err != nil:
			return nil, err
		default:
			want[tube] = norm
		}
	}
	if len(refusals) > 0 {
		return nil, fmt.Errorf("policy apply -f %s: %d of %d entries refused, nothing applied:\n%s",
			name, len(refusals), len(file), strings.Join(refusals, "\n"))
	}
	return want, nil
}

// carryOut sets and removes what r lists.
func (r *applyResult) carryOut(ctx context.Context, h *adminClient, want map[string]json.RawMessage) error {
	var done []string
	steps := append(slices.Clone(r.Set), r.Removed...)
	for i, tube := range steps {
		var err error
		if i < len(r.Set) {
			err = h.do(ctx, http.MethodPut, policyPath(tube), want[tube], nil)
		} else if err = h.do(ctx, http.MethodDelete, policyPath(tube), nil, nil); isNotFound(err) {
			err = nil // gone already
		}
		if err != nil {
			return fmt.Errorf("policy apply: tube %q: %w (done before it: %s; not done: %s)",
				tube, err, listOrNone(done), listOrNone(steps[i:]))
		}
		done = append(done, tube)
	}
	return nil
}

func isNotFound(err error) bool {
	var ae *adminError
	return errors.As(err, &ae) && ae.status == http.StatusNotFound
}

func listOrNone(tubes []string) string {
	if len(tubes) == 0 {
		return "none"
	}
	q := make([]string, len(tubes))
	for i, t := range tubes {
		q[i] = fmt.Sprintf("%q", t)
	}
	return strings.Join(q, ", ")
}

// isEmptyPolicy reports whether a policy's JSON has no field.
func isEmptyPolicy(b json.RawMessage) bool {
	var m map[string]any
	return json.Unmarshal(b, &m) == nil && len(m) == 0
}

// sameJSON reports whether two JSON documents hold the same value.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
