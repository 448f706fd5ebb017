package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
)

// The policy file is the truth (issue 28): checked whole before anything
// is written, exactly the server's policies, re-read on SIGHUP and applied
// in one journal record, and the admin API may not change them.

// policiesOf starts the daemon on dir without --policies and returns the
// policies its journal holds.
func policiesOf(t *testing.T, dir string) map[string]jobs.Policy {
	t.Helper()
	p := startSelf(t, "-l", "127.0.0.1", "-p", "0", "-b", dir, "--admin", "127.0.0.1:0")
	defer p.Stop()
	return adminPolicies(t, p)
}

// adminPolicies is GET /v1/policies of p.
func adminPolicies(t *testing.T, p *enginetest.Proc) map[string]jobs.Policy {
	t.Helper()
	var got struct{ Policies map[string]jobs.Policy }
	getJSON(t, "http://"+adminAddrOf(t, p)+"/v1/policies", &got)
	return got.Policies
}

// logLines returns p's JSON log lines whose message is msg.
func logLines(p *enginetest.Proc, msg string) []map[string]any {
	var out []map[string]any
	for _, l := range strings.Split(p.Log(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["message"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// TestProcessPolicyFileIsTheTruth: with a file the server's policies are
// exactly the file's (a tube no longer in it loses its policy, each change
// logged with before and after); a file with a bad entry after good ones
// stops the start (exit 5, naming the file, the tube and the field) and
// writes nothing.
func TestProcessPolicyFileIsTheTruth(t *testing.T) {
	dir := t.TempDir()
	first := writePolicies(t, "first.yaml", "a:\n  max_ready: 1\nb:\n  max_reserves: 2\n")
	p := startSelf(t, "-l", "127.0.0.1", "-p", "0", "-b", dir, "--policies", first)
	require.Equal(t, 0, p.Stop())

	second := writePolicies(t, "second.yaml", "a:\n  max_ready: 5\n  overflow: bury\nc:\n  reserve_rate: 2\n")
	p = startSelf(t, "-l", "127.0.0.1", "-p", "0", "-b", dir, "--admin", "127.0.0.1:0", "--policies", second)
	assert.Equal(t, map[string]jobs.Policy{"a": {MaxReady: 5, Overflow: jobs.OverflowBury}, "c": {ReserveRate: 2}},
		adminPolicies(t, p), "b is no longer in the file: it lost its policy")
	changes := map[string][2]string{}
	for _, l := range logLines(p, "tube policy changed by the policy file") {
		before, _ := json.Marshal(l["before"])
		after, _ := json.Marshal(l["after"])
		changes[l["tube"].(string)] = [2]string{string(before), string(after)}
		assert.Equal(t, second, l["file"])
	}
	assert.Equal(t, map[string][2]string{
		"a": {`{"max_ready":1}`, `{"max_ready":5,"overflow":"bury"}`},
		"b": {`{"max_reserves":2}`, "null"},
		"c": {"null", `{"reserve_rate":2}`},
	}, changes)
	require.Len(t, logLines(p, "policy file applied"), 1)
	require.Equal(t, 0, p.Stop())

	// Good entries, then a bad one: refused whole before anything is written.
	bad := writePolicies(t, "bad.yaml", "a:\n  max_ready: 9\nd:\n  max_ready: 1\nemails:\n  max_reserves: 1\n  dead_letter: emails\n")
	cmd, stderr := stalkd(t, "-l", "127.0.0.1", "-p", "0", "-b", dir, "--policies", bad)
	out, _ := io.ReadAll(stderr)
	require.Equal(t, exitUsage, exitCode(t, cmd))
	assert.Contains(t, string(out), "--policies "+bad+`: tube "emails": dead_letter: is the tube itself`)
	assert.NotContains(t, string(out), "Usage", "no usage text after a bad file")
	assert.Equal(t, map[string]jobs.Policy{"a": {MaxReady: 5, Overflow: jobs.OverflowBury}, "c": {ReserveRate: 2}},
		policiesOf(t, dir), "nothing of the bad file was applied")
}

// TestProcessPolicyFileSIGHUP: SIGHUP re-reads the file and applies it
// the same way; a bad file on reload is logged and changes nothing; TLS
// is not needed for SIGHUP to be obeyed. While the file is in force the
// admin API refuses policy changes with 409 managed_by_file.
func TestProcessPolicyFileSIGHUP(t *testing.T) {
	file := writePolicies(t, "policies.yaml", "a:\n  max_ready: 1\n")
	p := startSelf(t, "-l", "127.0.0.1", "-p", "0", "--admin", "127.0.0.1:0", "--policies", file)
	admin := "http://" + adminAddrOf(t, p)

	for _, m := range []string{http.MethodPut, http.MethodDelete} {
		req, err := http.NewRequest(m, admin+"/v1/tubes/a/policy", strings.NewReader(`{"max_ready": 7}`))
		require.NoError(t, err)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, http.StatusConflict, res.StatusCode, m)
		var e struct {
			Error struct{ Code, File, Message string }
		}
		require.NoError(t, json.Unmarshal(b, &e))
		assert.Equal(t, "managed_by_file", e.Error.Code)
		assert.Equal(t, file, e.Error.File)
		assert.Contains(t, e.Error.Message, file)
	}

	require.NoError(t, os.WriteFile(file, []byte("b:\n  max_reserves: 3\n  dead_letter: b-dead\n"), 0o600))
	require.NoError(t, p.Signal(syscall.SIGHUP))
	want := map[string]jobs.Policy{"b": {MaxReserves: 3, DeadLetter: "b-dead"}}
	require.Eventually(t, func() bool {
		return assert.ObjectsAreEqual(want, adminPolicies(t, p))
	}, waitLong, 10*time.Millisecond, "the reloaded file is the truth")

	require.NoError(t, os.WriteFile(file, []byte("b:\n  max_reserves: 3\n  dead_letter: c\nc:\n  max_reserves: 1\n  dead_letter: b\n"), 0o600))
	require.NoError(t, p.Signal(syscall.SIGHUP))
	require.Eventually(t, func() bool {
		return len(logLines(p, "policy file not applied: the policies are unchanged")) == 1
	}, waitLong, 10*time.Millisecond)
	l := logLines(p, "policy file not applied: the policies are unchanged")[0]
	assert.Contains(t, l["error"], "b → c → b")
	assert.Equal(t, want, adminPolicies(t, p), "a bad reload changes nothing")
	c := enginetest.Dial(t, p.Addr())
	c.Do("list-tube-used\r\n", "USING default\r\n") // still serving
	require.Equal(t, 0, p.Stop())
}

// TestProcessPolicyReloadAtomic: a SIGHUP reload is one journal record.
// The daemon is killed (SIGKILL) right after each SIGHUP; after a restart
// the journal holds the whole old set or the whole new one, never a part.
func TestProcessPolicyReloadAtomic(t *testing.T) {
	dir := t.TempDir()
	// Two sets that share no tube and no value: any mix of them is seen.
	set := func(prefix string, n int) (string, map[string]jobs.Policy) {
		var b bytes.Buffer
		want := map[string]jobs.Policy{}
		for i := range n {
			name := fmt.Sprintf("%s-%03d", prefix, i)
			fmt.Fprintf(&b, "%s:\n  max_ready: %d\n", name, i+1)
			want[name] = jobs.Policy{MaxReady: uint32(i + 1)}
		}
		return b.String(), want
	}
	textA, wantA := set("a", 150)
	textB, wantB := set("b", 150)
	file := writePolicies(t, "policies.yaml", textA)
	p := startSelf(t, "-l", "127.0.0.1", "-p", "0", "-b", dir, "--policies", file)
	require.Equal(t, 0, p.Stop())
	seen := map[string]int{}
	current := textA
	for i := range 5 {
		next, delay := textB, []time.Duration{0, 5, 20, 60, 200}[i]*time.Millisecond
		if current == textB {
			next = textA
		}
		// Start with the file holding what the journal holds (the start
		// changes nothing), then change the file and reload.
		require.NoError(t, os.WriteFile(file, []byte(current), 0o600))
		p = startSelf(t, "-l", "127.0.0.1", "-p", "0", "-b", dir, "--policies", file)
		require.NoError(t, os.WriteFile(file, []byte(next), 0o600))
		require.NoError(t, p.Signal(syscall.SIGHUP))
		time.Sleep(delay) // from at once to 200 ms: before, during and after the reload
		p.Kill()
		got := policiesOf(t, dir)
		switch {
		case assert.ObjectsAreEqual(wantA, got):
			seen["a"]++
			current = textA
		case assert.ObjectsAreEqual(wantB, got):
			seen["b"]++
			current = textB
		default:
			t.Fatalf("round %d: the journal holds a part of a reload: %d policies", i, len(got))
		}
	}
	t.Logf("after kill -9: old set %d times, new set %d times", seen["a"], seen["b"])
}
