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
//	stalkctl policy get TUBE        GET    /v1/tubes/TUBE/policy
//	stalkctl policy set TUBE ...    PUT    /v1/tubes/TUBE/policy
//	stalkctl policy rm TUBE         DELETE /v1/tubes/TUBE/policy
//	stalkctl policy list            GET    /v1/policies
//
// get and list print YAML in the shape of stalkd's --policies file (a map
// tube -> policy), so their output can be kept in a repository and read
// back at start. set replaces the tube's whole policy with the one built
// from -f FILE (YAML or JSON) and the field flags, a flag overriding the
// file's field. stalkctl does not check the fields itself: the server
// validates them and names the bad one, so stalkctl never disagrees with
// the server it talks to.

// policyCommand is listed after the cluster commands (commands.go).
var policyCommand = &command{
	name: "policy",
	synopsis: "get|set|rm TUBE | list  [-f FILE] [--max-reserves N] [--dead-letter TUBE] " +
		"[--max-ready N] [--reserve-rate R] [--admin URL]",
	help: "show, set (replacing the whole policy) or remove a tube's policy, or list them all; " +
		"get and list print a --policies file",
	minArgs: 1, maxArgs: 2, flags: policyFlags, check: checkPolicy, admin: adminPolicy,
}

// policyArgs are the flags of policy set. Each field flag remembers
// whether it was given, so that only given ones override the file.
type policyArgs struct {
	file        string
	maxReserves optNumber
	deadLetter  optString
	maxReady    optNumber
	reserveRate optNumber
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

func policyFlags(fs *flag.FlagSet, inv *invocation) {
	p := &inv.policy
	fs.StringVar(&p.file, "f", "", "read the policy from FILE (YAML or JSON; - for stdin)")
	fs.Var(&p.maxReserves, "max-reserves", "dead-letter (or bury) a job released or timed out after N reserves")
	fs.Var(&p.deadLetter, "dead-letter", "the tube such jobs move to (without it they are buried)")
	fs.Var(&p.maxReady, "max-ready", "refuse puts (QUEUE_FULL) while N jobs are ready or delayed")
	fs.Var(&p.reserveRate, "reserve-rate", "hand out at most R reserves per second")
}

// policyVerbs are the subcommands and how many arguments each takes.
var policyVerbs = map[string]int{"get": 2, "set": 2, "rm": 2, "list": 1}

func checkPolicy(inv *invocation) error {
	verb := inv.args[0]
	n, ok := policyVerbs[verb]
	if !ok {
		return usageErrorf("policy: want get, set, rm or list, not %q", verb)
	}
	if len(inv.args) != n {
		if n == 1 {
			return usageErrorf("usage: stalkctl policy list")
		}
		return usageErrorf("usage: stalkctl policy %s TUBE", verb)
	}
	p := inv.policy
	given := p.file != "" || p.maxReserves.set || p.deadLetter.set || p.maxReady.set || p.reserveRate.set
	switch {
	case verb == "set" && !given:
		return usageErrorf("policy set: give -f FILE or at least one of --max-reserves, --dead-letter, --max-ready, --reserve-rate")
	case verb != "set" && given:
		return usageErrorf("policy %s takes no policy flags (they are for set)", verb)
	}
	return nil
}

func policyPath(tube string) string { return "/v1/tubes/" + url.PathEscape(tube) + "/policy" }

// adminPolicy runs policy get|set|rm|list.
func adminPolicy(ctx context.Context, a *app, h *adminClient, inv *invocation) (result, error) {
	verb := inv.args[0]
	if verb == "list" {
		var out struct {
			Policies map[string]json.RawMessage `json:"policies"`
		}
		if err := h.do(ctx, http.MethodGet, "/v1/policies", nil, &out); err != nil {
			return nil, err
		}
		if out.Policies == nil {
			out.Policies = map[string]json.RawMessage{}
		}
		return policiesResult{all: out.Policies}, nil
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
		if err := h.do(ctx, http.MethodPut, policyPath(tube), body, &pol); err != nil {
			return nil, err
		}
	case "rm":
		if err := h.do(ctx, http.MethodDelete, policyPath(tube), nil, nil); err != nil {
			return nil, policyNotFound(err, tube)
		}
		return removedResult{tube}, nil
	}
	return policiesResult{all: map[string]json.RawMessage{tube: pol}, one: true}, nil
}

// policyNotFound says what a 404 means here: no policy for the tube.
func policyNotFound(err error, tube string) error {
	if ae, ok := err.(*adminError); ok && ae.status == http.StatusNotFound {
		return &described{msg: fmt.Sprintf("tube %q has no policy", tube), err: err}
	}
	return err
}

// policyBody builds set's request: the file's fields (if any), then the
// given flags over them. It returns the JSON object to send. A file that
// holds {tube: policy} for this very tube (what get prints) counts as that
// policy, so get, edit, set -f is a round trip.
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
	if p.reserveRate.set {
		fields["reserve_rate"] = p.reserveRate.v
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
		return nil, usageErrorf("policy set -f: %v", err)
	}
	out := map[string]any{}
	trimmed := bytes.TrimSpace(b)
	if strings.EqualFold(filepath.Ext(name), ".json") || bytes.HasPrefix(trimmed, []byte("{")) {
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		if err := dec.Decode(&out); err != nil {
			return nil, usageErrorf("policy set -f %s: not a JSON object: %v", name, err)
		}
		return out, nil
	}
	if err := yaml.Unmarshal(trimmed, &out); err != nil {
		return nil, usageErrorf("policy set -f %s: not a YAML mapping: %v", name, err)
	}
	return out, nil
}
