package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
)

// writePolicies writes a policy file called name.
func writePolicies(t *testing.T, name, text string) string {
	return enginetest.WriteFile(t, name, text)
}

const policiesYAML = `# kept in the deployment's repository
emails:
  max_reserves: 5
  dead_letter: emails-dead
webhooks:
  max_ready: 100000
  reserve_rate: 20
maintenance:
  schedule:
    - cron: "0 3 * * *"
      body: '{"task":"vacuum"}'
      priority: 100
      ttr: 600
"123":
  max_ready: 1
`

var policiesWant = policySet{
	"emails":   {MaxReserves: 5, DeadLetter: "emails-dead"},
	"webhooks": {MaxReady: 100000, ReserveRate: 20},
	"maintenance": {Schedule: []jobs.Schedule{
		{Cron: "0 3 * * *", Body: `{"task":"vacuum"}`, Priority: 100, TTR: 600}}},
	"123": {MaxReady: 1},
}

// TestPoliciesFlag: --policies reads YAML or JSON (by extension or
// content) into the same policies.
func TestPoliciesFlag(t *testing.T) {
	o, _, err := parseArgs([]string{"--policies", writePolicies(t, "p.yaml", policiesYAML)}, func(string) {})
	require.NoError(t, err)
	assert.Equal(t, policiesWant, o.policies.current())

	js, err := json.Marshal(policiesWant)
	require.NoError(t, err)
	for _, name := range []string{"p.json", "policies"} { // by extension; by content
		o, _, err = parseArgs([]string{"--policies=" + writePolicies(t, name, string(js))}, func(string) {})
		require.NoError(t, err, name)
		assert.Equal(t, policiesWant, o.policies.current(), name)
	}
	o, _, err = parseArgs([]string{"--policies", writePolicies(t, "empty.yaml", "# none yet\n")}, func(string) {})
	require.NoError(t, err)
	assert.NotNil(t, o.policies, "an empty file is a file: no policies at all")
	assert.Empty(t, o.policies.current())

	var b bytes.Buffer
	usage(&b, "stalkd")
	assert.Contains(t, b.String(), "--policies FILE")
}

// TestPoliciesFileRefused: a bad file is refused whole, naming the file,
// the tube and the field: each policy alone, and the rules across tubes
// (a dead letter naming its own tube, cycles of any length).
func TestPoliciesFileRefused(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"typo.yaml", "emails:\n  max_reserves: 5\n  dead_leter: x\n", []string{`tube "emails"`, "dead_leter", "unknown field"}},
		{"type.yaml", "ok:\n  max_ready: 1\nwebhooks:\n  max_ready: lots\n", []string{`tube "webhooks"`, "max_ready"}},
		{"sched.yaml", "m:\n  schedule:\n    - crn: '* * * * *'\n", []string{`tube "m"`, "schedule[0].crn"}},
		{"neg.json", `{"q": {"reserve_rate": "x"}}`, []string{`tube "q"`, "reserve_rate"}},
		{"name.yaml", "-bad:\n  max_ready: 1\n", []string{`"-bad" is not a valid tube name`}},
		{"list.yaml", "- emails\n", []string{"not a YAML map"}},
		{"broken.json", `{"emails": {`, []string{"not a JSON object"}},
		{"self.yaml", "a:\n  max_ready: 1\nemails:\n  max_reserves: 2\n  dead_letter: emails\n",
			[]string{`tube "emails"`, "dead_letter", "is the tube itself"}},
		{"cycle.yaml", "emails:\n  max_reserves: 2\n  dead_letter: emails-dead\nemails-dead:\n  max_reserves: 1\n  dead_letter: emails\n",
			[]string{`tube "emails"`, "dead_letter", "emails → emails-dead → emails"}},
		{"cycle3.yaml", "a:\n  max_reserves: 1\n  dead_letter: b\nb:\n  max_ready: 3\n  overflow: dead_letter\n  dead_letter: c\nc:\n  max_reserves: 1\n  dead_letter: a\n",
			[]string{`tube "a"`, "a → b → c → a"}},
		{"overflow.yaml", "a:\n  max_ready: 3\n  overflow: drop\n", []string{`tube "a"`, "overflow", "reject, bury, dead_letter"}},
	} {
		path := writePolicies(t, c.name, c.text)
		_, _, err := parseArgs([]string{"--policies", path}, func(string) {})
		require.Error(t, err, c.name)
		assert.IsType(t, configError(""), err, c.name)
		assert.Contains(t, err.Error(), path, c.name)
		for _, w := range c.want {
			assert.Contains(t, err.Error(), w, c.name)
		}
	}
	_, _, err := parseArgs([]string{"--policies", filepath.Join(t.TempDir(), "missing.yaml")}, func(string) {})
	assert.IsType(t, configError(""), err)

	// The whole program: exit 5, the reason on stderr naming the file, the
	// tube and the field, without the usage text; nothing started.
	var out, errb bytes.Buffer
	bad := writePolicies(t, "x.yaml", "t:\n  max_ready: -3\n")
	code := realMain([]string{"stalkd", "-p", "0", "--policies", bad}, &out, &errb)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errb.String(), "--policies "+bad+`: tube "t": max_ready`)
	assert.NotContains(t, errb.String(), "--help", "no usage after a bad file")
	assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "one line: %q", errb.String())
	// A bad command line still gets the usage.
	errb.Reset()
	assert.Equal(t, exitUsage, realMain([]string{"stalkd", "--policies"}, &out, &errb))
	assert.Contains(t, errb.String(), "--policies FILE")
}

// TestProcessPoliciesFile runs the daemon with --policies: the policies
// are in force before it serves (the admin API lists them; a worker that
// always releases sees its job dead-lettered after max_reserves).
func TestProcessPoliciesFile(t *testing.T) {
	file := writePolicies(t, "policies.yaml", "emails:\n  max_reserves: 2\n  dead_letter: emails-dead\n")
	p := startSelf(t, "-l", "127.0.0.1", "-p", "0", "--admin", "127.0.0.1:0", "--policies", file)
	var got struct{ Policies map[string]jobs.Policy }
	getJSON(t, "http://"+adminAddrOf(t, p)+"/v1/policies", &got)
	assert.Equal(t, map[string]jobs.Policy{"emails": {MaxReserves: 2, DeadLetter: "emails-dead"}}, got.Policies)

	c, err := beanstalk.Dial("tcp", p.Addr())
	require.NoError(t, err)
	defer c.Close()
	id, err := (&beanstalk.Tube{Conn: c, Name: "emails"}).Put([]byte("mail"), 10, 0, time.Minute)
	require.NoError(t, err)
	work := beanstalk.NewTubeSet(c, "emails")
	for range 2 { // the worker that always fails
		rid, _, err := work.Reserve(waitLong)
		require.NoError(t, err)
		require.Equal(t, id, rid)
		require.NoError(t, c.Release(rid, 10, 0))
	}
	dead := beanstalk.NewTubeSet(c, "emails-dead")
	rid, body, err := dead.Reserve(waitLong)
	require.NoError(t, err, "the job is in the dead-letter tube after 2 reserves")
	assert.Equal(t, id, rid, "with its id")
	assert.Equal(t, "mail", string(body))
	c.Close()
	require.Equal(t, 0, p.Stop())
}

// adminAddrOf waits for the admin listener's start line in p's log.
func adminAddrOf(t *testing.T, p *enginetest.Proc) string {
	t.Helper()
	deadline := time.Now().Add(waitLong)
	for time.Now().Before(deadline) {
		for _, l := range strings.Split(p.Log(), "\n") {
			var line struct{ Message, Addr string }
			if json.Unmarshal([]byte(l), &line) == nil && line.Message == "admin listener started" {
				return line.Addr
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no admin listener line:\n%s", p.Log())
	return ""
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, string(b))
	require.NoError(t, json.Unmarshal(b, v), string(b))
}

// TestProcessPoliciesSurviveRestart: with -b the file's policy is in the
// journal: a restart without --policies still has it, and a restart with
// a changed file replaces it.
func TestProcessPoliciesSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	file := writePolicies(t, "policies.yaml", "emails:\n  max_reserves: 2\n  dead_letter: emails-dead\n")
	p := startSelf(t, "-l", "127.0.0.1", "-p", "0", "-b", dir, "--policies", file)
	require.Equal(t, 0, p.Stop())

	p = startSelf(t, "-l", "127.0.0.1", "-p", "0", "-b", dir, "--admin", "127.0.0.1:0")
	var got struct{ Policies map[string]jobs.Policy }
	getJSON(t, "http://"+adminAddrOf(t, p)+"/v1/policies", &got)
	assert.Equal(t, map[string]jobs.Policy{"emails": {MaxReserves: 2, DeadLetter: "emails-dead"}}, got.Policies,
		"the journal keeps the policy")
	require.Equal(t, 0, p.Stop())

	changed := writePolicies(t, "changed.yaml", "emails:\n  max_reserves: 4\n")
	p = startSelf(t, "-l", "127.0.0.1", "-p", "0", "-b", dir, "--admin", "127.0.0.1:0", "--policies", changed)
	got.Policies = nil
	getJSON(t, "http://"+adminAddrOf(t, p)+"/v1/policies", &got)
	assert.Equal(t, map[string]jobs.Policy{"emails": {MaxReserves: 4}}, got.Policies, "the file wins for its tubes")
	require.Equal(t, 0, p.Stop())
}
