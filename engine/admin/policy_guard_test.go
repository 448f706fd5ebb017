package admin

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// TestAPIPolicyManagedByFile: with a policy file in force, every mutating
// method of every route that touches policies is refused with 409
// managed_by_file naming the file, and nothing changes; reads still work.
// The routes are found in the route table itself, so a method or a
// policy route added later is covered (and fails here if it bypasses the
// guard).
func TestAPIPolicyManagedByFile(t *testing.T) {
	const file = "/etc/stalkd/policies.yaml"
	s := newStack(t, func(o *Options) { o.PolicyFile = file })
	require.NoError(t, s.q.SetPolicy("a", jobs.Policy{MaxReady: 1}))
	checked := 0
	for _, rt := range s.adm.apiRoutes() {
		path := "/v1/" + strings.ReplaceAll(strings.Join(rt.pattern, "/"), "*", "a")
		if !strings.Contains(path, "polic") {
			continue
		}
		for m := range rt.methods {
			if m == http.MethodGet || m == http.MethodHead {
				continue
			}
			code, b := s.send(m, path, `{"max_ready": 9}`)
			require.Equal(t, http.StatusConflict, code, "%s %s: %s", m, path, b)
			var e fileErr
			require.NoError(t, json.Unmarshal(b, &e))
			assert.Equal(t, "managed_by_file", e.Error.Code)
			assert.Equal(t, file, e.Error.File)
			assert.Contains(t, e.Error.Message, file)
			checked++
		}
	}
	assert.GreaterOrEqual(t, checked, 2, "PUT and DELETE at least")
	assert.Equal(t, map[string]jobs.Policy{"a": {MaxReady: 1}}, s.q.Policies(), "nothing changed")
	var got jobs.Policy
	s.json(http.MethodGet, "/v1/tubes/a/policy", http.StatusOK, &got)
	assert.Equal(t, jobs.Policy{MaxReady: 1}, got)

	// Without a file the API owns the policies.
	free := newStack(t)
	code, b := free.send(http.MethodPut, "/v1/tubes/a/policy", `{"max_ready": 9}`)
	assert.Equal(t, http.StatusOK, code, string(b))
}

// TestAPIPolicyCycle: a policy closing a dead-letter cycle is 400
// bad_policy naming the field, with the cycle in the message.
func TestAPIPolicyCycle(t *testing.T) {
	s := newStack(t)
	code, b := s.send(http.MethodPut, "/v1/tubes/emails/policy", `{"max_reserves": 3, "dead_letter": "emails-dead"}`)
	require.Equal(t, http.StatusOK, code, string(b))
	code, b = s.send(http.MethodPut, "/v1/tubes/emails-dead/policy", `{"max_ready": 5, "overflow": "dead_letter", "dead_letter": "emails"}`)
	assert.Equal(t, "dead_letter", refused(t, code, b))
	assert.Contains(t, string(b), "emails → emails-dead → emails")
	_, ok := s.q.Policy("emails-dead")
	assert.False(t, ok)
}
