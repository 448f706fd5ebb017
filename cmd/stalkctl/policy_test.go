package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakePolicyAPI is the policy half of the admin API, as a map: enough to
// pin what stalkctl sends and how it prints the replies.
type fakePolicyAPI struct {
	mu       sync.Mutex
	policies map[string]json.RawMessage
	bodies   []string // PUT and PATCH bodies, as sent
	methods  []string // their methods and content types
}

func (f *fakePolicyAPI) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (f *fakePolicyAPI) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path == "/v1/policies" {
		_ = json.NewEncoder(w).Encode(map[string]any{"policies": f.policies})
		return
	}
	rest, _ := strings.CutPrefix(r.URL.EscapedPath(), "/v1/tubes/")
	esc, ok := strings.CutSuffix(rest, "/policy")
	tube, err := url.PathUnescape(esc)
	if !ok || err != nil {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	notFound := func() {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"code":"no_policy","message":"the tube has no policy"}}`)
	}
	switch r.Method {
	case http.MethodGet:
		p, ok := f.policies[tube]
		if !ok {
			notFound()
			return
		}
		w.Write(p)
	case http.MethodPatch:
		b, _ := io.ReadAll(r.Body)
		f.bodies = append(f.bodies, string(b))
		f.methods = append(f.methods, r.Method+" "+r.Header.Get("Content-Type"))
		merged := map[string]any{}
		_ = json.Unmarshal(f.policies[tube], &merged)
		var patch map[string]any
		_ = json.Unmarshal(b, &patch)
		for k, v := range patch {
			if v == nil {
				delete(merged, k)
			} else {
				merged[k] = v
			}
		}
		out, _ := json.Marshal(merged)
		f.policies[tube] = out
		w.Write(out)
	case http.MethodPut:
		b, _ := io.ReadAll(r.Body)
		f.bodies = append(f.bodies, string(b))
		f.methods = append(f.methods, r.Method+" "+r.Header.Get("Content-Type"))
		if strings.Contains(string(b), `"max_ready":-1`) {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"code":"bad_policy","message":"max_ready: want a whole number","field":"max_ready"}}`)
			return
		}
		f.policies[tube] = b
		w.Write(b)
	case http.MethodDelete:
		if _, ok := f.policies[tube]; !ok {
			notFound()
			return
		}
		delete(f.policies, tube)
		io.WriteString(w, `{"tube":"`+tube+`","removed":true}`)
	}
}

// TestPolicySetFromFlagsAndFiles: set sends the flags as JSON numbers and
// strings, a YAML or JSON file's fields with the flags over them, and
// prints the policy as a --policies file.
func TestPolicySetFromFlagsAndFiles(t *testing.T) {
	f := &fakePolicyAPI{policies: map[string]json.RawMessage{}}
	env := map[string]string{"STALKD_ADMIN": f.start(t)}

	r := ctlEnv(env, "policy", "set", "emails", "--max-reserves", "5", "--dead-letter", "emails-dead", "--reserve-rate", "2.5")
	if r.code != 0 {
		t.Fatalf("policy set: exit %d %q", r.code, r.stderr)
	}
	if f.methods[0] != "PATCH application/merge-patch+json" {
		t.Errorf("set merges: sent %s", f.methods[0])
	}
	var sent map[string]any
	if err := json.Unmarshal([]byte(f.bodies[0]), &sent); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"max_reserves": 5.0, "dead_letter": "emails-dead", "reserve_rate": 2.5}
	if !equalJSON(sent, want) {
		t.Errorf("sent %s, want %v", f.bodies[0], want)
	}
	if !strings.Contains(r.stdout, "emails:\n") || !strings.Contains(r.stdout, "  max_reserves: 5\n") ||
		!strings.Contains(r.stdout, "  dead_letter: emails-dead\n") {
		t.Errorf("set prints the policy as a --policies file:\n%s", r.stdout)
	}

	dir := t.TempDir()
	yml := filepath.Join(dir, "p.yaml")
	writeFile(t, yml, "max_ready: 1000\nschedule:\n  - cron: \"@every 30s\"\n    body: ping\n    ttr: 60\n")
	r = ctlEnv(env, "policy", "set", "a/b", "-f", yml, "--max-ready", "10")
	if r.code != 0 {
		t.Fatalf("policy set -f yaml: exit %d %q", r.code, r.stderr)
	}
	sent = nil
	_ = json.Unmarshal([]byte(f.bodies[1]), &sent)
	want = map[string]any{"max_ready": 10.0, "schedule": []any{map[string]any{"cron": "@every 30s", "body": "ping", "ttr": 60.0}}}
	if !equalJSON(sent, want) {
		t.Errorf("sent %s, want the file with --max-ready over it", f.bodies[1])
	}
	if _, ok := f.policies["a/b"]; !ok {
		t.Errorf("the tube name a/b reached the API escaped and whole: %v", f.policies)
	}
	if !strings.Contains(r.stdout, "'@every 30s'") && !strings.Contains(r.stdout, `"@every 30s"`) {
		t.Errorf("a string YAML cannot hold plain stays quoted:\n%s", r.stdout)
	}

	js := filepath.Join(dir, "p.json")
	writeFile(t, js, `{"max_reserves": 3}`)
	if r = ctlEnv(env, "policy", "set", "x", "-f", js, "--replace"); r.code != 0 || f.bodies[2] != `{"max_reserves":3}` ||
		f.methods[2] != "PUT application/json" {
		t.Errorf("policy set -f json --replace: exit %d, sent %s %q", r.code, f.methods[2], f.bodies[2])
	}
	// stdin.
	var out, errb strings.Builder
	a := testApp(strings.NewReader("max_reserves: 4\n"), &out, &errb, env)
	if code := a.main(t.Context(), []string{"policy", "set", "x", "-f", "-"}); code != 0 || f.bodies[3] != `{"max_reserves":4}` {
		t.Errorf("policy set -f -: exit %d %q, sent %q", code, errb.String(), f.bodies[3])
	}

	// --unset removes fields: null in the merge patch.
	if r = ctlEnv(env, "policy", "set", "emails", "--unset", "dead_letter,reserve_rate", "--unset", "max_ready"); r.code != 0 ||
		f.bodies[4] != `{"dead_letter":null,"max_ready":null,"reserve_rate":null}` {
		t.Errorf("policy set --unset: exit %d %q, sent %q", r.code, r.stderr, f.bodies[4])
	}
	if got := string(f.policies["emails"]); got != `{"max_reserves":5}` {
		t.Errorf("after --unset the fake holds %s", got)
	}

	// The server's refusal: exit 1 with its message naming the field.
	r = ctlEnv(env, "policy", "set", "x", "--max-ready", "-1", "--replace")
	if r.code != exitFailure || !strings.Contains(r.stderr, "max_ready") {
		t.Errorf("refused policy: exit %d %q", r.code, r.stderr)
	}
}

// TestPolicyGetListRemove: get prints YAML (or the policy as JSON), list
// prints every policy as one --policies file, rm removes; a tube without a
// policy is exit 4.
func TestPolicyGetListRemove(t *testing.T) {
	f := &fakePolicyAPI{policies: map[string]json.RawMessage{
		"emails": json.RawMessage(`{"max_reserves":5,"dead_letter":"dead"}`),
		"123":    json.RawMessage(`{"max_ready":7}`),
	}}
	env := map[string]string{"STALKD_ADMIN": f.start(t)}

	r := ctlEnv(env, "policy", "get", "emails")
	if r.code != 0 || r.stdout != "emails:\n  max_reserves: 5\n  dead_letter: dead\n" {
		t.Errorf("policy get: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = ctlEnv(env, "--json", "policy", "get", "emails")
	var p map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &p) != nil || p["max_reserves"] != 5.0 {
		t.Errorf("policy get --json: exit %d %q", r.code, r.stdout)
	}
	r = ctlEnv(env, "policy", "list")
	if r.code != 0 || r.stdout != "\"123\":\n  max_ready: 7\nemails:\n  max_reserves: 5\n  dead_letter: dead\n" {
		t.Errorf("policy list: exit %d %q", r.code, r.stdout)
	}
	r = ctlEnv(env, "--json", "policy", "list")
	var all map[string]map[string]any // a --policies file, as JSON
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &all) != nil || len(all) != 2 || all["emails"]["dead_letter"] != "dead" {
		t.Errorf("policy list --json: exit %d %q", r.code, r.stdout)
	}

	if r = ctlEnv(env, "policy", "rm", "emails"); r.code != 0 || !strings.Contains(r.stdout, `removed the policy of tube "emails"`) {
		t.Errorf("policy rm: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	for _, verb := range []string{"get", "rm"} {
		r = ctlEnv(env, "policy", verb, "emails")
		if r.code != exitNotFound || !strings.Contains(r.stderr, `tube "emails" has no policy`) {
			t.Errorf("policy %s of no policy: exit %d %q", verb, r.code, r.stderr)
		}
	}
	delete(f.policies, "123")
	if r = ctlEnv(env, "policy", "list"); r.code != 0 || !strings.Contains(r.stdout, "{}") {
		t.Errorf("empty policy list: exit %d %q", r.code, r.stdout)
	}
}

// TestPolicyUsageErrors: mistakes are caught before any request (exit 2).
func TestPolicyUsageErrors(t *testing.T) {
	env := map[string]string{"STALKD_ADMIN": "http://127.0.0.1:1"}
	for _, args := range [][]string{
		{"policy"},
		{"policy", "show", "x"},
		{"policy", "get"},
		{"policy", "list", "x"},
		{"policy", "set", "x"},
		{"policy", "get", "x", "--max-ready", "3"},
		{"policy", "set", "x", "--max-ready", "many"},
		{"policy", "set", "x", "-f", filepath.Join(t.TempDir(), "missing.yaml")},
		{"policy", "set", "x", "--unset", "max_ready", "--replace"},
		{"policy", "get", "x", "--replace"},
		{"policy", "apply"},
		{"policy", "apply", "x", "-f", "f.yaml"},
		{"policy", "apply", "-f", "f.yaml", "--max-ready", "3"},
		{"policy", "set", "x", "--max-ready", "3", "--prune"},
		{"policy", "list", "--dry-run"},
	} {
		if r := ctlEnv(env, args...); r.code != exitUsage {
			t.Errorf("%v: exit %d %q, want %d", args, r.code, r.stderr, exitUsage)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	writeFile(t, bad, `{"max_ready": `)
	if r := ctlEnv(env, "policy", "set", "x", "-f", bad); r.code != exitUsage || !strings.Contains(r.stderr, "not a JSON object") {
		t.Errorf("bad JSON file: exit %d %q", r.code, r.stderr)
	}
}

// TestAdminAddressDefault: the admin API's address is --admin, else
// $STALKD_ADMIN, else 127.0.0.1:11380; only a named one sends cluster to
// the admin API rather than the protocol's stats-cluster.
func TestAdminAddressDefault(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, c := range []struct {
		args  []string
		env   map[string]string
		want  string
		given bool
	}{
		{[]string{"policy", "list"}, nil, "127.0.0.1:11380", false},
		{[]string{"policy", "list"}, map[string]string{"STALKD_ADMIN": "10.0.0.1:11380"}, "10.0.0.1:11380", true},
		{[]string{"policy", "list", "--admin", "h:1"}, map[string]string{"STALKD_ADMIN": "10.0.0.1:11380"}, "h:1", true},
		{[]string{"cluster"}, nil, "127.0.0.1:11380", false},
	} {
		inv, err := parse(c.args, env(c.env))
		if err != nil || inv.adminURL != c.want || inv.adminGiven != c.given {
			t.Errorf("%v with %v: admin %q given %v, %v; want %q %v", c.args, c.env, inv.adminURL, inv.adminGiven, err, c.want, c.given)
		}
	}
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// equalJSON compares two decoded JSON values.
func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
