package admin

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// TestAPIPolicyPatch: PATCH merges a JSON merge patch into the tube's
// policy: named fields change, null removes one, the rest stay; a result
// the queue refuses, an unknown field or a wrong type is 400 bad_policy
// naming the field and changes nothing; the media type is checked.
func TestAPIPolicyPatch(t *testing.T) {
	s := newStack(t)
	base := jobs.Policy{MaxReserves: 5, DeadLetter: "emails-dead", ReserveRate: 3}
	require.NoError(t, s.q.SetPolicy("emails", base))
	const path = "/v1/tubes/emails/policy"
	mp := []string{"Content-Type", "application/merge-patch+json"}

	code, b := s.send(http.MethodPatch, path, `{"max_ready": 100}`, mp...)
	require.Equal(t, http.StatusOK, code, string(b))
	want := jobs.Policy{MaxReserves: 5, DeadLetter: "emails-dead", ReserveRate: 3, MaxReady: 100}
	var got jobs.Policy
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, want, got, "PATCH answers with the whole policy")
	p, _ := s.q.Policy("emails")
	assert.Equal(t, want, p, "the dead letter survived a change of max_ready")

	// null removes a field; application/json is taken too.
	code, b = s.send(http.MethodPatch, path, `{"reserve_rate": null, "schedule": [{"cron": "@daily", "body": "d"}]}`)
	require.Equal(t, http.StatusOK, code, string(b))
	want = jobs.Policy{MaxReserves: 5, DeadLetter: "emails-dead", MaxReady: 100,
		Schedule: []jobs.Schedule{{Cron: "@daily", Body: "d", Priority: 1024, TTR: 60}}}
	p, _ = s.q.Policy("emails")
	assert.Equal(t, want, p, "null removed reserve_rate; the schedule got the defaults")

	for _, c := range []struct{ body, field string }{
		{`{"max_redy": 1}`, "max_redy"},
		{`{"schedule": [{"cron": "@daily", "bdy": "x"}]}`, "schedule[0].bdy"},
		{`{"max_ready": "lots"}`, "max_ready"},
		{`{"max_reserves": null}`, "dead_letter"},    // the result needs max_reserves
		{`{"dead_letter": "emails"}`, "dead_letter"}, // the tube itself
		{`{"schedule": [{"cron": "0 0 31 2 *"}]}`, "schedule[0].cron"},
		{`[{"max_ready": 1}]`, ""},
	} {
		code, b := s.send(http.MethodPatch, path, c.body, mp...)
		assert.Equal(t, c.field, refused(t, code, b), c.body)
	}
	p, _ = s.q.Policy("emails")
	assert.Equal(t, want, p, "a refused patch changes nothing")

	code, b = s.send(http.MethodPatch, path, `{"max_ready": 1}`, "Content-Type", "application/json-patch+json")
	assert.Equal(t, http.StatusUnsupportedMediaType, code, string(b))
	assert.Contains(t, string(b), "RFC 7386")
	code, _ = s.send(http.MethodPatch, path, `max_ready=1`, "Content-Type", "application/x-www-form-urlencoded")
	assert.Equal(t, http.StatusUnsupportedMediaType, code)

	// A tube without a policy starts from none; a patch that empties the
	// policy removes it.
	code, b = s.send(http.MethodPatch, "/v1/tubes/fresh/policy", `{"max_ready": 2}`, mp...)
	require.Equal(t, http.StatusOK, code, string(b))
	code, b = s.send(http.MethodPatch, "/v1/tubes/fresh/policy", `{"max_ready": null}`, mp...)
	require.Equal(t, http.StatusOK, code, string(b))
	assert.JSONEq(t, `{}`, string(b))
	_, ok := s.q.Policy("fresh")
	assert.False(t, ok, "removed")

	// Mutating rules apply to PATCH as to PUT.
	code, _ = s.send(http.MethodPatch, path, `{"max_ready": 1}`, "Host", "example.com")
	assert.Equal(t, http.StatusForbidden, code)
}

// TestAPIPolicyRuns: GET of a tube's policy shows each schedule's last and
// next run (null before the first), in its zone; the tube's view carries
// the same; /v1/policies keeps the file's shape; and a GET's body can be
// PUT back as it is (the runs are read-only, ignored).
func TestAPIPolicyRuns(t *testing.T) {
	s := newStack(t) // t0 is 2023-11-14 22:13:20 UTC
	require.NoError(t, s.q.SetPolicy("r", jobs.Policy{Schedule: []jobs.Schedule{
		{Cron: "15 23 * * *", TZ: "Europe/Berlin", Body: "nightly", Priority: 1024, TTR: 60},
		{Cron: "@every 1m", Body: "tick", Priority: 1, TTR: 5},
	}}))
	type runs struct {
		Schedule []struct {
			LastRun *string `json:"last_run"`
			NextRun *string `json:"next_run"`
		} `json:"schedule"`
	}
	var r runs
	s.json(http.MethodGet, "/v1/tubes/r/policy", http.StatusOK, &r)
	require.Len(t, r.Schedule, 2)
	assert.Nil(t, r.Schedule[0].LastRun)
	assert.Equal(t, "2023-11-14T23:15:00+01:00", *r.Schedule[0].NextRun, "in the schedule's zone")
	assert.Nil(t, r.Schedule[1].LastRun)
	assert.Equal(t, "2023-11-14T22:14:20Z", *r.Schedule[1].NextRun)

	s.clock.Advance(90 * time.Second)
	s.q.Tick()
	_, body := s.do(http.MethodGet, "/v1/tubes/r/policy")
	r = runs{}
	require.NoError(t, json.Unmarshal(body, &r))
	require.NotNil(t, r.Schedule[1].LastRun)
	assert.Equal(t, "2023-11-14T22:14:20Z", *r.Schedule[1].LastRun)
	assert.Equal(t, "2023-11-14T22:15:20Z", *r.Schedule[1].NextRun)

	var tube struct {
		Policy runs `json:"policy"`
	}
	s.json(http.MethodGet, "/v1/tubes/r", http.StatusOK, &tube)
	require.Len(t, tube.Policy.Schedule, 2)
	assert.Equal(t, "2023-11-14T22:14:20Z", *tube.Policy.Schedule[1].LastRun, "the tube's view too")

	_, all := s.do(http.MethodGet, "/v1/policies")
	assert.NotContains(t, string(all), "last_run", "the list keeps the file's shape")

	before, _ := s.q.Policy("r")
	code, b := s.send(http.MethodPut, "/v1/tubes/r/policy", string(body))
	require.Equal(t, http.StatusOK, code, string(b))
	after, _ := s.q.Policy("r")
	assert.Equal(t, before, after, "GET's body PUT back changes nothing")
	_, body = s.do(http.MethodGet, "/v1/tubes/r/policy")
	r = runs{}
	require.NoError(t, json.Unmarshal(body, &r))
	assert.Equal(t, "2023-11-14T22:14:20Z", *r.Schedule[1].LastRun, "and keeps the progress")
}

// TestAPIPolicyDryRun: PUT ?dry_run=true answers what it would set, or the
// refusal, and changes nothing.
func TestAPIPolicyDryRun(t *testing.T) {
	s := newStack(t)
	code, b := s.send(http.MethodPut, "/v1/tubes/d/policy?dry_run=true", `{"schedule": [{"cron": "@hourly", "body": "h"}]}`)
	require.Equal(t, http.StatusOK, code, string(b))
	assert.JSONEq(t, `{"schedule": [{"cron": "@hourly", "body": "h", "priority": 1024, "ttr": 60}]}`, string(b))
	_, ok := s.q.Policy("d")
	assert.False(t, ok, "a dry run sets nothing")
	req, err := http.NewRequest(http.MethodPut, s.adm.URL()+"/v1/tubes/d/policy?dry_run=true", strings.NewReader(`{"max_ready": 1}`))
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, "true", res.Header.Get("Stalkd-Dry-Run"), "the answer says it was a dry run")
	code, b = s.send(http.MethodPut, "/v1/tubes/d/policy?dry_run=1", `{"max_reserves": 1, "dead_letter": "d"}`)
	assert.Equal(t, "dead_letter", refused(t, code, b))
}
