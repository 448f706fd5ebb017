package admin

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// send does a request with a JSON body and returns the status and response.
func (s *stack) send(method, path, body string, hdr ...string) (int, []byte) {
	s.t.Helper()
	return s.request(method, path, strings.NewReader(body), hdr)
}

// refused decodes a bad_policy answer and returns its field.
func refused(t *testing.T, code int, b []byte) string {
	t.Helper()
	require.Equal(t, http.StatusBadRequest, code, string(b))
	var e policyErr
	require.NoError(t, json.Unmarshal(b, &e), string(b))
	require.Equal(t, "bad_policy", e.Error.Code, string(b))
	require.NotEmpty(t, e.Error.Message)
	return e.Error.Field
}

// TestAPIPolicyRoundTrip: PUT sets a policy (on a tube that does not exist
// yet), GET and /v1/policies read it back, the tube's figures carry it,
// PUT replaces it whole, DELETE removes it.
func TestAPIPolicyRoundTrip(t *testing.T) {
	s := newStack(t)
	code, b := s.send(http.MethodPut, "/v1/tubes/emails/policy",
		`{"max_reserves": 3, "dead_letter": "emails-dead", "max_ready": 100, "reserve_rate": 2.5,
		  "schedule": [{"cron": "@every 30s", "body": "ping", "priority": 10, "ttr": 60}]}`)
	require.Equal(t, http.StatusOK, code, string(b))
	want := jobs.Policy{MaxReserves: 3, DeadLetter: "emails-dead", MaxReady: 100, ReserveRate: 2.5,
		Schedule: []jobs.Schedule{{Cron: "@every 30s", Body: "ping", Priority: 10, TTR: 60}}}
	var got jobs.Policy
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, want, got, "PUT answers with the policy")
	p, ok := s.q.Policy("emails")
	require.True(t, ok, "the queue holds it")
	assert.Equal(t, want, p)

	got = jobs.Policy{}
	s.json(http.MethodGet, "/v1/tubes/emails/policy", http.StatusOK, &got)
	assert.Equal(t, want, got)
	var all policiesJSON
	s.json(http.MethodGet, "/v1/policies", http.StatusOK, &all)
	assert.Equal(t, map[string]jobs.Policy{"emails": want}, all.Policies)

	// The tube's figures carry the policy once the tube exists.
	_, err := beanstalk.NewTube(s.client(), "emails").Put([]byte("x"), 1, 0, time.Minute)
	require.NoError(t, err)
	var one struct {
		Policy *jobs.Policy `json:"policy"`
	}
	s.json(http.MethodGet, "/v1/tubes/emails", http.StatusOK, &one)
	require.NotNil(t, one.Policy)
	assert.Equal(t, want, *one.Policy)
	var list tubesJSON
	s.json(http.MethodGet, "/v1/tubes", http.StatusOK, &list)
	for _, tj := range list.Tubes {
		assert.Equal(t, tj.Name == "emails", tj.Policy != nil, tj.Name)
	}

	// PUT replaces the whole policy: fields left out are off.
	code, b = s.send(http.MethodPut, "/v1/tubes/emails/policy", `{"max_ready": 5}`)
	require.Equal(t, http.StatusOK, code, string(b))
	p, _ = s.q.Policy("emails")
	assert.Equal(t, jobs.Policy{MaxReady: 5}, p)

	var del map[string]any
	s.json(http.MethodDelete, "/v1/tubes/emails/policy", http.StatusOK, &del)
	assert.Equal(t, map[string]any{"tube": "emails", "removed": true}, del)
	_, ok = s.q.Policy("emails")
	assert.False(t, ok)
	assert.Equal(t, "no_policy", s.apiError(http.MethodGet, "/v1/tubes/emails/policy", http.StatusNotFound))
	assert.Equal(t, "no_policy", s.apiError(http.MethodDelete, "/v1/tubes/emails/policy", http.StatusNotFound))
	all = policiesJSON{}
	s.json(http.MethodGet, "/v1/policies", http.StatusOK, &all)
	assert.Empty(t, all.Policies)
	_, b = s.do(http.MethodGet, "/v1/policies")
	assert.Contains(t, string(b), `"policies": {}`, "an empty map, not null")

	// Names with path characters, percent-encoded.
	code, b = s.send(http.MethodPut, "/v1/tubes/"+escapeAll("a/b;$(c)")+"/policy", `{"max_ready": 1}`)
	require.Equal(t, http.StatusOK, code, string(b))
	_, ok = s.q.Policy("a/b;$(c)")
	assert.True(t, ok)
	assert.Equal(t, "bad_tube_name", s.apiError(http.MethodGet, "/v1/tubes/-x/policy", http.StatusBadRequest))
	code, _ = s.send(http.MethodPut, "/v1/tubes/a%20b/policy", `{"max_ready": 1}`)
	assert.Equal(t, http.StatusBadRequest, code)
}

// TestAPIPolicyRefused: every kind of bad body is 400 bad_policy naming the
// field, and the policy the tube had stays as it was.
func TestAPIPolicyRefused(t *testing.T) {
	s := newStack(t)
	before := jobs.Policy{MaxReserves: 2}
	require.NoError(t, s.q.SetPolicy("t", before))
	for _, c := range []struct{ body, field string }{
		{`{"max_reserves": 3, "dead_leter": "x"}`, "dead_leter"},
		{`{"schedule": [{"cron": "@every 1m", "body": "b"}, {"crn": "* * * * *"}]}`, "schedule[1].crn"},
		{`{"max_reserves": "3"}`, "max_reserves"},
		{`{"max_reserves": -1}`, "max_reserves"},
		{`{"max_ready": 4294967296}`, "max_ready"},
		{`{"reserve_rate": "fast"}`, "reserve_rate"},
		{`{"schedule": {"cron": "@every 1m"}}`, "schedule"},
		{`{"schedule": [{"cron": "not a cron", "body": "b", "ttr": 1}]}`, "schedule[0].cron"},
		{`{"max_ready": 1} {"max_ready": 2}`, ""},
		{`[1, 2]`, ""},
		{`{"max_ready": `, ""},
		{``, ""},
	} {
		code, b := s.send(http.MethodPut, "/v1/tubes/t/policy", c.body)
		field := refused(t, code, b)
		if c.field == "schedule[0].cron" {
			assert.Contains(t, field, "cron", "%s: %s", c.body, b) // Validate's own naming of the entry
		} else {
			assert.Equal(t, c.field, field, "%s: %s", c.body, b)
		}
		p, ok := s.q.Policy("t")
		assert.True(t, ok)
		assert.Equal(t, before, p, "nothing of %s is applied", c.body)
	}
	code, b := s.send(http.MethodPut, "/v1/tubes/t/policy", `{"body": "`+strings.Repeat("x", maxPolicyBody)+`"}`)
	assert.Equal(t, http.StatusRequestEntityTooLarge, code, string(b))
}

// TestAPIPolicyMutationRules: PUT and DELETE obey the same guard as the
// other mutating calls; GET does not need it.
func TestAPIPolicyMutationRules(t *testing.T) {
	s := newStack(t)
	code, b := s.send(http.MethodPut, "/v1/tubes/t/policy", `{"max_ready": 1}`, "Host", "evil.example:80")
	assert.Equal(t, http.StatusForbidden, code, string(b))
	code, b = s.send(http.MethodPut, "/v1/tubes/t/policy", `{"max_ready": 1}`, "Origin", "http://evil.example")
	assert.Equal(t, http.StatusForbidden, code, string(b))
	code, _ = s.send(http.MethodDelete, "/v1/tubes/t/policy", "", "Host", "evil.example:80")
	assert.Equal(t, http.StatusForbidden, code)
	_, ok := s.q.Policy("t")
	assert.False(t, ok, "a refused mutation applies nothing")

	tok := newStack(t, func(o *Options) { o.Tokens = []string{"policy-token-0123456789"} })
	code, _ = tok.send(http.MethodPut, "/v1/tubes/t/policy", `{"max_ready": 1}`)
	assert.Equal(t, http.StatusUnauthorized, code)
	code, b = tok.send(http.MethodPut, "/v1/tubes/t/policy", `{"max_ready": 1}`, "Authorization", "Bearer policy-token-0123456789")
	assert.Equal(t, http.StatusOK, code, string(b))
}

// TestAPIPolicyOnClusterFollower: a follower answers 421 naming the leader
// and applies nothing; once the node leads, the call reaches its queue.
func TestAPIPolicyOnClusterFollower(t *testing.T) {
	var cur atomic.Pointer[jobs.Queue]
	srv, err := Start(Options{Addr: "127.0.0.1:0", Cluster: switchCluster{&cur}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Stop(context.Background()) })
	put := func() (int, string) {
		req, err := http.NewRequest(http.MethodPut, srv.URL()+"/v1/tubes/t/policy", strings.NewReader(`{"max_ready": 7}`))
		require.NoError(t, err)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	code, body := put()
	assert.Equal(t, http.StatusMisdirectedRequest, code)
	assert.Contains(t, body, `"leader": "n2"`)

	q := jobs.New(jobs.Config{})
	cur.Store(q)
	code, body = put()
	require.Equal(t, http.StatusOK, code, body)
	p, ok := q.Policy("t")
	assert.True(t, ok)
	assert.Equal(t, uint32(7), p.MaxReady)
}

// TestMetricsPolicyCounters: the per-tube policy series come from the
// queue's counters at scrape time, for every exported tube, and
// stalkd_policies counts the policies.
func TestMetricsPolicyCounters(t *testing.T) {
	s := newStack(t)
	require.NoError(t, s.q.SetPolicy("work", jobs.Policy{MaxReserves: 1, DeadLetter: "work-dead", MaxReady: 1}))
	require.NoError(t, s.q.SetPolicy("nowhere", jobs.Policy{MaxReady: 3})) // a policy of no tube
	ss := s.q.NewSession(nil)
	defer ss.Close()
	require.NoError(t, ss.Use([]byte("work")))
	id, _, err := ss.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte("a")})
	require.NoError(t, err)
	_, _, err = ss.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte("b")})
	require.Error(t, err, "max_ready 1: the second put is refused")
	_, _, err = ss.ReserveJob(id)
	require.NoError(t, err)
	_, err = ss.Release(id, 0, 0)
	require.NoError(t, err)

	// reserve_rate 1: the second reserve of the second finds the bucket empty.
	require.NoError(t, s.q.SetPolicy("slow", jobs.Policy{ReserveRate: 1}))
	ps := s.q.NewSession(nil) // ss keeps using "work", so that the tube and its counters live
	defer ps.Close()
	require.NoError(t, ps.Use([]byte("slow")))
	for range 2 {
		_, _, err = ps.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte("s")})
		require.NoError(t, err)
	}
	w := s.q.NewSession(nil)
	defer w.Close()
	_, err = w.Watch([]byte("slow"))
	require.NoError(t, err)
	_, err = w.Reserve(0)
	require.NoError(t, err)
	_, err = w.Reserve(0)
	require.ErrorIs(t, err, jobs.ErrTimedOut, "held back by the rate")

	// A schedule every second, driven by the manual clock.
	require.NoError(t, s.q.SetPolicy("cron", jobs.Policy{Schedule: []jobs.Schedule{{Cron: "@every 1s", Body: "tick", TTR: 5}}}))
	s.clock.Advance(time.Second)
	s.q.Tick()

	m := s.scrape()
	for tube, want := range map[string][4]float64{
		"work":    {1, 1, 0, 0},
		"slow":    {0, 0, 1, 0},
		"cron":    {0, 0, 0, 1},
		"nowhere": {0, 0, 0, 0}, // a policy whose tube does not exist has its series
	} {
		for i, name := range []string{"stalkd_tube_dead_lettered_total", "stalkd_tube_refused_full_total",
			"stalkd_tube_rate_limited_waits_total", "stalkd_tube_scheduled_puts_total"} {
			v, ok := value(m, name, "tube", tube)
			assert.True(t, ok, "%s{tube=%q}", name, tube)
			assert.Equal(t, want[i], v, "%s{tube=%q}", name, tube)
		}
	}
	_, ok := value(m, "stalkd_tube_dead_lettered_total", "tube", "work-dead")
	assert.False(t, ok, "a tube without a policy has no policy series")
	v, ok := value(m, "stalkd_policies")
	assert.True(t, ok)
	assert.Equal(t, 4.0, v)

	// The counters belong to the policy: they stay when the tube empties
	// and vanishes.
	_, err = ss.Delete(id) // the job, now in work-dead
	require.NoError(t, err)
	require.NoError(t, ss.Use([]byte("default")))
	_, err = s.q.StatsTube([]byte("work"))
	require.ErrorIs(t, err, jobs.ErrNotFound, "the tube is gone")
	m = s.scrape()
	v, ok = value(m, "stalkd_tube_dead_lettered_total", "tube", "work")
	assert.True(t, ok, "the series outlives the tube")
	assert.Equal(t, 1.0, v)

	// Policy series are capped, the busiest kept.
	capped := newStackOn(t, s.q, s.clock, func(o *Options) { o.MetricsMaxTubes = 1 })
	m = capped.scrape()
	assert.Len(t, m["stalkd_tube_dead_lettered_total"].GetMetric(), 1, "one policy kept under the cap")
	_, ok = value(m, "stalkd_tube_dead_lettered_total", "tube", "nowhere")
	assert.False(t, ok, "the quietest policies get no series")
	v, _ = value(m, "stalkd_policies_truncated")
	assert.Equal(t, 1.0, v)
	v, _ = value(m, "stalkd_policies")
	assert.Equal(t, 4.0, v, "the count is of every policy")
}

// TestAPIPoliciesCounters: /v1/policies carries each policy's counters
// and whether its tube exists, for a policy whose tube does not exist
// yet and one whose tube emptied and vanished alike.
func TestAPIPoliciesCounters(t *testing.T) {
	s := newStack(t)
	require.NoError(t, s.q.SetPolicy("later", jobs.Policy{MaxReady: 3}))
	require.NoError(t, s.q.SetPolicy("gone", jobs.Policy{MaxReady: 1}))
	ss := s.q.NewSession(nil)
	defer ss.Close()
	require.NoError(t, ss.Use([]byte("gone")))
	id, _, err := ss.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte("a")})
	require.NoError(t, err)
	_, _, err = ss.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte("b")})
	require.ErrorIs(t, err, jobs.ErrQueueFull)
	_, err = ss.Delete(id)
	require.NoError(t, err)
	require.NoError(t, ss.Use([]byte("default")))
	var out policiesJSON
	s.json(http.MethodGet, "/v1/policies", http.StatusOK, &out)
	assert.Equal(t, map[string]jobs.Policy{"later": {MaxReady: 3}, "gone": {MaxReady: 1}}, out.Policies)
	assert.Equal(t, map[string]policyCounter{
		"later": {},
		"gone":  {policyCounts: policyCounts{RefusedFull: 1}},
	}, out.Counters)
}
