package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Tube policies (jobs/POLICIES.md), through the admin API:
//
//	stalkctl policy get TUBE          GET    /v1/tubes/TUBE/policy
//	stalkctl policy set TUBE ...      PATCH  /v1/tubes/TUBE/policy (--replace: PUT)
//	stalkctl policy rm TUBE           DELETE /v1/tubes/TUBE/policy
//	stalkctl policy list              GET    /v1/policies
//	stalkctl policy apply -f FILE     every tube of a --policies file (policy_apply.go)
//
// get and list print YAML in the shape of stalkd's --policies file (a map
// tube -> policy), so their output can be kept in a repository, read back
// at start, or given to apply; get adds each schedule's last and next run
// as a comment. set merges: the fields of -f FILE (YAML or JSON) and the
// field flags, a flag over the file's field, change those fields and keep
// the others (a JSON merge patch; --unset FIELD removes one); --replace
// sets the whole policy to them instead. stalkctl does not check the
// fields itself: the server validates them and names the bad one, so
// stalkctl never disagrees with the server it talks to.

// policyCommand is listed after the cluster commands (commands.go).
var policyCommand = &command{
	name: "policy",
	synopsis: "get|set|rm TUBE | list | apply -f FILE [--prune] [--dry-run]  " +
		"[-f FILE] [--max-reserves N] [--dead-letter TUBE] [--max-ready N] [--overflow MODE] [--reserve-rate R] [--unset FIELD] [--replace]",
	help: "show, change (merging; --replace sets it whole) or remove a tube's policy, list them all " +
		"(a --policies file), or set every policy of such a file",
	minArgs: 1, maxArgs: 2, flags: policyFlags, check: checkPolicy, admin: adminPolicy,
}

// policyArgs are the flags of policy set and apply. Each field flag
// remembers whether it was given, so that only given ones override the
// file.
type policyArgs struct {
	file        string
	maxReserves optNumber
	deadLetter  optString
	maxReady    optNumber
	overflow    optString
	reserveRate optNumber
	unset       fieldList // set: fields to remove (null in the merge patch)
	replace     bool      // set: PUT the whole policy instead of merging
	prune       bool      // apply: remove the policies of tubes the file leaves out
	dryRun      bool      // apply: show what would change, change nothing
}

// optNumber is a numeric flag that records whether it was set; its text is
// checked to be a number and sent as a JSON number.
type optNumber struct {
	v   json.Number
	set bool
}

func (o *optNumber) String() string { return o.v.String() }
func (o *optNumber) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%q is not a number", s)
	}
	o.v, o.set = json.Number(s), true
	return nil
}

type optString struct {
	v   string
	set bool
}

func (o *optString) String() string     { return o.v }
func (o *optString) Set(s string) error { o.v, o.set = s, true; return nil }

// fieldList is --unset: field names, repeated or comma-separated.
type fieldList []string

func (l *fieldList) String() string { return strings.Join(*l, ",") }
func (l *fieldList) Set(s string) error {
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			*l = append(*l, f)
		}
	}
	return nil
}

func policyFlags(fs *flag.FlagSet, inv *invocation) {
	p := &inv.policy
	fs.StringVar(&p.file, "f", "", "read the policy (apply: every policy) from FILE (YAML or JSON; - for stdin)")
	fs.Var(&p.maxReserves, "max-reserves", "dead-letter (or bury) a job released or timed out after N reserves")
	fs.Var(&p.deadLetter, "dead-letter", "the tube such jobs move to (without it they are buried)")
	fs.Var(&p.maxReady, "max-ready", "cap the tube at N ready or delayed jobs: a put over it overflows")
	fs.Var(&p.overflow, "overflow", "what a put over max-ready gets: reject (OUT_OF_MEMORY, the default), bury (BURIED <id>) or dead_letter (into --dead-letter)")
	fs.Var(&p.reserveRate, "reserve-rate", "hand out at most R reserves per second")
	fs.Var(&p.unset, "unset", "remove FIELD from the policy (max_reserves, dead_letter, max_ready, reserve_rate, schedule, ...)")
	fs.BoolVar(&p.replace, "replace", false, "set the whole policy to the file and flags (fields left out are removed)")
	fs.BoolVar(&p.prune, "prune", false, "apply: also remove the policies of tubes the file does not name")
	fs.BoolVar(&p.dryRun, "dry-run", false, "apply: check the file and show what would change, changing nothing")
}

// policyVerbs are the subcommands and how many arguments each takes.
var policyVerbs = map[string]int{"get": 2, "set": 2, "rm": 2, "list": 1, "apply": 1}

func checkPolicy(inv *invocation) error {
	verb := inv.args[0]
	n, ok := policyVerbs[verb]
	if !ok {
		return usageErrorf("policy: want get, set, rm, list or apply, not %q", verb)
	}
	if len(inv.args) != n {
		if n == 1 {
			return usageErrorf("usage: stalkctl policy %s", strings.TrimSpace(verb+" "+map[string]string{"apply": "-f FILE"}[verb]))
		}
		return usageErrorf("usage: stalkctl policy %s TUBE", verb)
	}
	p := inv.policy
	fields := p.maxReserves.set || p.deadLetter.set || p.maxReady.set || p.overflow.set || p.reserveRate.set || len(p.unset) > 0
	switch {
	case verb == "set" && p.file == "" && !fields:
		return usageErrorf("policy set: give -f FILE or at least one of --max-reserves, --dead-letter, --max-ready, --overflow, --reserve-rate, --unset")
	case verb == "set" && p.replace && len(p.unset) > 0:
		return usageErrorf("policy set: --unset merges; with --replace leave the field out instead")
	case verb == "apply" && p.file == "":
		return usageErrorf("policy apply: give -f FILE (a --policies file: tube name to policy)")
	case verb == "apply" && fields:
		return usageErrorf("policy apply takes the file only (field flags are for set)")
	case verb != "set" && verb != "apply" && (p.file != "" || fields):
		return usageErrorf("policy %s takes no policy flags (they are for set)", verb)
	case verb != "set" && p.replace:
		return usageErrorf("--replace is for policy set")
	case verb != "apply" && (p.prune || p.dryRun):
		return usageErrorf("--prune and --dry-run are for policy apply")
	}
	return nil
}

func policyPath(tube string) string { return "/v1/tubes/" + url.PathEscape(tube) + "/policy" }

// adminPolicy runs policy get|set|rm|list|apply.
func adminPolicy(ctx context.Context, a *app, h *adminClient, inv *invocation) (result, error) {
	verb := inv.args[0]
	switch verb {
	case "list":
		all, err := listPolicies(ctx, h)
		if err != nil {
			return nil, err
		}
		return policiesResult{all: all}, nil
	case "apply":
		return applyPolicies(ctx, a, h, inv)
	}
	tube := inv.args[1]
	var pol json.RawMessage
	switch verb {
	case "get":
		if err := h.do(ctx, http.MethodGet, policyPath(tube), nil, &pol); err != nil {
			return nil, policyNotFound(err, tube)
		}
	case "set":
		body, err := policyBody(a, &inv.policy, tube)
		if err != nil {
			return nil, err
		}
		method := http.MethodPatch
		if inv.policy.replace {
			method = http.MethodPut
		}
		if err := h.do(ctx, method, policyPath(tube), body, &pol); err != nil {
			return nil, patchUnsupported(err, method)
		}
	case "rm":
		if err := h.do(ctx, http.MethodDelete, policyPath(tube), nil, nil); err != nil {
			return nil, policyNotFound(err, tube)
		}
		return removedResult{tube}, nil
	}
	return policiesResult{all: map[string]json.RawMessage{tube: pol}, one: true}, nil
}

// listPolicies reads every policy (GET /v1/policies).
func listPolicies(ctx context.Context, h *adminClient) (map[string]json.RawMessage, error) {
	var out struct {
		Policies map[string]json.RawMessage `json:"policies"`
	}
	if err := h.do(ctx, http.MethodGet, "/v1/policies", nil, &out); err != nil {
		return nil, err
	}
	if out.Policies == nil {
		out.Policies = map[string]json.RawMessage{}
	}
	return out.Policies, nil
}

// patchUnsupported explains a 405 to PATCH: a stalkd from before merging.
func patchUnsupported(err error, method string) error {
	if ae, ok := err.(*adminError); ok && ae.status == http.StatusMethodNotAllowed && method == http.MethodPatch {
		return &described{msg: "this server cannot merge a policy change (a stalkd older than PATCH): " +
			"give the whole policy with --replace", err: err}
	}
	return err
}

// policyNotFound says what a 404 means here: no policy for the tube.
func policyNotFound(err error, tube string) error {
	if ae, ok := err.(*adminError); ok && ae.status == http.StatusNotFound {
		return &described{msg: fmt.Sprintf("tube %q has no policy", tube), err: err}
	}
	return err
}

// policyBody builds set's request: the file's fields (if any), then the
// given flags over them, then --unset's fields as null. It returns the
// JSON object to send: a merge patch, or with --replace the whole policy.
// A file that holds {tube: policy} for this very tube (what get prints)
// counts as that policy, so get, edit, set -f is a round trip.
func policyBody(a *app, p *policyArgs, tube string) (json.RawMessage, error) {
	fields := map[string]any{}
	if p.file != "" {
		var err error
		if fields, err = readPolicyFile(a, p.file); err != nil {
			return nil, err
		}
		if inner, ok := fields[tube].(map[string]any); ok && len(fields) == 1 {
			fields = inner
		}
	}
	if p.maxReserves.set {
		fields["max_reserves"] = p.maxReserves.v
	}
	if p.deadLetter.set {
		fields["dead_letter"] = p.deadLetter.v
	}
	if p.maxReady.set {
		fields["max_ready"] = p.maxReady.v
	}
	if p.overflow.set {
		fields["overflow"] = p.overflow.v
	}
	if p.reserveRate.set {
		fields["reserve_rate"] = p.reserveRate.v
	}
	for _, f := range p.unset {
		fields[f] = nil
	}
	return json.Marshal(fields)
}

// readPolicyFile reads one policy, as JSON (a .json file, or text starting
// with '{') or YAML, into a generic object: the server checks the fields.
func readPolicyFile(a *app, name string) (map[string]any, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(io.LimitReader(a.stdin, 1<<20))
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, usageErrorf("policy -f: %v", err)
	}
	out := map[string]any{}
	trimmed := bytes.TrimSpace(b)
	if strings.EqualFold(filepath.Ext(name), ".json") || bytes.HasPrefix(trimmed, []byte("{")) {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		if err := dec.Decode(&out); err != nil {
			return nil, usageErrorf("policy -f %s: not a JSON object: %v", name, err)
		}
		return out, nil
	}
	if err := yaml.Unmarshal(trimmed, &out); err != nil {
		return nil, usageErrorf("policy -f %s: not a YAML mapping: %v", name, err)
	}
	return out, nil
}
