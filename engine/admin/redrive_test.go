package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// post sends a JSON body to the admin listener.
func (s *stack) post(path, body string) (int, []byte) {
	s.t.Helper()
	return s.request(http.MethodPost, path, strings.NewReader(body), nil)
}

// postJSON posts body, checks the status and decodes the answer into v.
func (s *stack) postJSON(path, body string, want int, v any) {
	s.t.Helper()
	code, b := s.post(path, body)
	require.Equal(s.t, want, code, "POST %s %s: %s", path, body, b)
	require.NoError(s.t, json.Unmarshal(b, v), string(b))
}

// errorOf posts body and returns the error code of the answer, checking
// the status and that there is a message.
func (s *stack) errorOf(path, body string, want int) string {
	s.t.Helper()
	var e apiErr
	s.postJSON(path, body, want, &e)
	require.NotEmpty(s.t, e.Error.Message)
	return e.Error.Code
}

// deadLetter makes a job dead-lettered through go-beanstalk over TCP: put
// into "work" (max_reserves 1, dead_letter "dead"), reserved and released.
func (s *stack) deadLetter(c *beanstalk.Conn, body string, pri uint32) uint64 {
	s.t.Helper()
	id, err := beanstalk.NewTube(c, "work").Put([]byte(body), pri, 0, time.Minute)
	require.NoError(s.t, err)
	rid, _, err := beanstalk.NewTubeSet(c, "work").Reserve(time.Second)
	require.NoError(s.t, err)
	require.Equal(s.t, id, rid)
	require.NoError(s.t, c.Release(id, pri, 0))
	return id
}

// stats112 are the keys beanstalkd 1.12's stats-job has.
var stats112 = []string{"age", "buries", "delay", "file", "id", "kicks", "pri", "releases", "reserves",
	"state", "time-left", "timeouts", "ttr", "tube"}

// TestAPIDeadLetterView: GET /v1/jobs/{id} and the tube listing show what
// a dead-lettered job remembers (origin, reason, when: the queue's clock);
// other jobs show nothing; the protocol's stats-job keeps 1.12's keys.
func TestAPIDeadLetterView(t *testing.T) {
	s := newStack(t)
	require.NoError(t, s.q.SetPolicy("work", jobs.Policy{MaxReserves: 1, DeadLetter: "dead"}))
	c := s.client()
	id := s.deadLetter(c, "hello", 7)
	s.clock.Advance(90 * time.Second)

	var j struct {
		Tube       string
		DeadLetter *deadLetterJSON `json:"dead_letter"`
	}
	s.json(http.MethodGet, fmt.Sprintf("/v1/jobs/%d", id), http.StatusOK, &j)
	assert.Equal(t, "dead", j.Tube)
	require.NotNil(t, j.DeadLetter)
	assert.Equal(t, deadLetterJSON{Origin: "work", Reason: "max_reserves_released",
		ReasonText: jobs.DeadReleased.Text(), At: "2023-11-14T22:13:20Z", AgeSeconds: 90}, *j.DeadLetter)

	var list jobListJSON
	s.json(http.MethodGet, "/v1/tubes/dead/jobs?state=ready", http.StatusOK, &list)
	require.Len(t, list.Jobs, 1)
	require.NotNil(t, list.Jobs[0].DeadLetter)
	assert.Equal(t, "work", list.Jobs[0].DeadLetter.Origin)

	plain, err := beanstalk.NewTube(c, "dead").Put([]byte("x"), 1, 0, time.Minute)
	require.NoError(t, err)
	code, b := s.do(http.MethodGet, fmt.Sprintf("/v1/jobs/%d", plain))
	require.Equal(t, http.StatusOK, code)
	assert.NotContains(t, string(b), "dead_letter")

	st, err := c.StatsJob(id)
	require.NoError(t, err)
	keys := make([]string, 0, len(st))
	for k := range st {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	assert.Equal(t, stats112, keys, "stats-job: 1.12's keys, no more")
	assert.Equal(t, "dead", st["tube"])
}

// TestAPIRedriveRoundTrip: go-beanstalk over TCP reserves and releases a
// job until it is dead-lettered; POST /v1/tubes/dead/redrive sends it
// back, and go-beanstalk reserves it again from its origin with the same
// id, body and priority.
func TestAPIRedriveRoundTrip(t *testing.T) {
	s := newStack(t)
	require.NoError(t, s.q.SetPolicy("work", jobs.Policy{MaxReserves: 2, DeadLetter: "dead"}))
	c := s.client()
	id, err := beanstalk.NewTube(c, "work").Put([]byte("resize 42"), 9, 0, time.Minute)
	require.NoError(t, err)
	ts := beanstalk.NewTubeSet(c, "work")
	for range 2 {
		rid, _, err := ts.Reserve(time.Second)
		require.NoError(t, err)
		require.Equal(t, id, rid)
		require.NoError(t, c.Release(id, 9, 0))
	}
	st, err := c.StatsJob(id)
	require.NoError(t, err)
	require.Equal(t, "dead", st["tube"], "dead-lettered after two reserves")
	_, _, err = ts.Reserve(0)
	require.ErrorIs(t, err, beanstalk.ErrTimeout, "nothing left in work")

	var res redriveJSON
	s.postJSON("/v1/tubes/dead/redrive", "", http.StatusOK, &res)
	assert.Equal(t, redriveJSON{Tube: "dead", Moved: 1, To: map[string]int{"work": 1}}, res)

	rid, body, err := ts.Reserve(time.Second)
	require.NoError(t, err)
	assert.Equal(t, id, rid, "the same id")
	assert.Equal(t, "resize 42", string(body))
	st, err = c.StatsJob(id)
	require.NoError(t, err)
	assert.Equal(t, "work", st["tube"])
	assert.Equal(t, "9", st["pri"])
	assert.Equal(t, "1", st["reserves"], "counted afresh: this is its first reserve since")
	code, b := s.do(http.MethodGet, fmt.Sprintf("/v1/jobs/%d", id))
	require.Equal(t, http.StatusOK, code)
	assert.NotContains(t, string(b), "dead_letter")
}

// TestAPIRedriveOptionsAndMove: "to" and "max" of a redrive; moving one
// job keeps its state; a reserved job is refused with 409.
func TestAPIRedriveOptionsAndMove(t *testing.T) {
	s := newStack(t)
	require.NoError(t, s.q.SetPolicy("work", jobs.Policy{MaxReserves: 1, DeadLetter: "dead"}))
	c := s.client()
	var ids []uint64
	for i := range 3 {
		ids = append(ids, s.deadLetter(c, fmt.Sprint("job ", i), uint32(i)))
	}
	var res redriveJSON
	s.postJSON("/v1/tubes/dead/redrive", `{"to": "retry", "max": 2}`, http.StatusOK, &res)
	assert.Equal(t, redriveJSON{Tube: "dead", Moved: 2, To: map[string]int{"retry": 2}, Left: 1}, res)

	var moved map[string]any
	s.postJSON(fmt.Sprintf("/v1/jobs/%d/move", ids[2]), `{"tube": "parked"}`, http.StatusOK, &moved)
	assert.Equal(t, map[string]any{"id": float64(ids[2]), "tube": "parked", "moved": true}, moved)
	js, err := s.q.StatsJob(ids[2])
	require.NoError(t, err)
	assert.Equal(t, "parked", js.Tube)
	s.postJSON(fmt.Sprintf("/v1/jobs/%d/move", ids[2]), `{"tube": "parked"}`, http.StatusOK, &moved)
	assert.Equal(t, false, moved["moved"], "already there")

	rid, _, err := beanstalk.NewTubeSet(c, "parked").Reserve(time.Second)
	require.NoError(t, err)
	assert.Equal(t, "reserved", s.errorOf(fmt.Sprintf("/v1/jobs/%d/move", rid), `{"tube": "x"}`, http.StatusConflict))
}

// TestAPIRedriveAndMoveErrors: each bad request has its status, code and
// message, and changes nothing.
func TestAPIRedriveAndMoveErrors(t *testing.T) {
	s := newStack(t)
	c := s.client()
	id, err := beanstalk.NewTube(c, "dead").Put([]byte("x"), 1, 0, time.Minute)
	require.NoError(t, err)
	for _, tc := range []struct {
		path, body string
		status     int
		code       string
	}{
		{"/v1/tubes/nope/redrive", "", http.StatusNotFound, "not_found"},
		{"/v1/tubes/-bad/redrive", "", http.StatusBadRequest, "bad_tube_name"},
		{"/v1/tubes/dead/redrive", `{"to": "-bad"}`, http.StatusBadRequest, "bad_tube_name"},
		{"/v1/tubes/dead/redrive", `{"to": "dead"}`, http.StatusBadRequest, "same_tube"},
		{"/v1/tubes/dead/redrive", `{"max": -1}`, http.StatusBadRequest, "bad_max"},
		{"/v1/tubes/dead/redrive", `{"max": "all"}`, http.StatusBadRequest, "bad_json"},
		{"/v1/tubes/dead/redrive", `{"to": "x", "maxx": 1}`, http.StatusBadRequest, "bad_json"},
		{"/v1/tubes/dead/redrive", `{`, http.StatusBadRequest, "bad_json"},
		{"/v1/tubes/dead/redrive", `{} {}`, http.StatusBadRequest, "bad_json"},
		{"/v1/tubes/dead/redrive", `[]`, http.StatusBadRequest, "bad_json"},
		{"/v1/tubes/dead/redrive", `{"to": "` + strings.Repeat("x", 70000) + `"}`, http.StatusRequestEntityTooLarge, "too_large"},
		{"/v1/jobs/abc/move", `{"tube": "x"}`, http.StatusBadRequest, "bad_job_id"},
		{"/v1/jobs/0/move", `{"tube": "x"}`, http.StatusBadRequest, "bad_job_id"},
		{"/v1/jobs/99999/move", `{"tube": "x"}`, http.StatusNotFound, "not_found"},
		{fmt.Sprintf("/v1/jobs/%d/move", id), ``, http.StatusBadRequest, "bad_body"},
		{fmt.Sprintf("/v1/jobs/%d/move", id), `{"tube": ""}`, http.StatusBadRequest, "bad_body"},
		{fmt.Sprintf("/v1/jobs/%d/move", id), `{"tube": "no spaces"}`, http.StatusBadRequest, "bad_tube_name"},
		{fmt.Sprintf("/v1/jobs/%d/move", id), `{"tub": "x"}`, http.StatusBadRequest, "bad_json"},
		{fmt.Sprintf("/v1/jobs/%d/move", id), `"x"`, http.StatusBadRequest, "bad_json"},
	} {
		assert.Equal(t, tc.code, s.errorOf(tc.path, tc.body, tc.status), "%s %s", tc.path, tc.body)
	}
	js, err := s.q.StatsJob(id)
	require.NoError(t, err)
	assert.Equal(t, "dead", js.Tube, "nothing moved")
	assert.Equal(t, "method_not_allowed", s.apiError(http.MethodGet, "/v1/tubes/dead/redrive", http.StatusMethodNotAllowed))
	// A redrive of jobs that remember no origin moves nothing, and says so.
	var res redriveJSON
	s.postJSON("/v1/tubes/dead/redrive", `{}`, http.StatusOK, &res)
	assert.Equal(t, redriveJSON{Tube: "dead", To: map[string]int{}, NoOrigin: 1, Left: 1}, res)
	// Mutations are refused off loopback hosts, like every action.
	code, _ := s.request(http.MethodPost, "/v1/tubes/dead/redrive", strings.NewReader(`{}`), []string{"Host", "example.com"})
	assert.Equal(t, http.StatusForbidden, code)
}

// moveCluster is a follower whose redrives and moves reach a leader's
// queue, or find no leader (lost).
type moveCluster struct {
	switchCluster
	leader *jobs.Queue
	lost   *atomic.Bool
}

func (c moveCluster) Redrive(tube string, r jobs.RedriveRequest) (jobs.RedriveResult, error) {
	if c.lost.Load() {
		return jobs.RedriveResult{}, cluster.ErrNotLeader
	}
	return c.leader.Redrive(tube, r)
}

func (c moveCluster) MoveJob(id uint64, to string) (bool, error) {
	if c.lost.Load() {
		return false, cluster.ErrNotLeader
	}
	_, moved, err := c.leader.MoveJob(id, to)
	return moved, err
}

// TestAPIRedriveForwardedByFollower: with a MoveForwarder, a follower takes
// redrives and moves and answers as the leader would (its refusals
// included); 421 when no leader takes them; reading stays the leader's.
func TestAPIRedriveForwardedByFollower(t *testing.T) {
	var cur atomic.Pointer[jobs.Queue]
	var lost atomic.Bool
	leader := jobs.New(jobs.Config{})
	ss := leader.NewSession(nil)
	defer ss.Close()
	require.NoError(t, ss.Use([]byte("dead")))
	id, _, err := ss.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte("x")})
	require.NoError(t, err)
	srv, err := Start(Options{Addr: "127.0.0.1:0", Cluster: moveCluster{switchCluster{&cur}, leader, &lost}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Stop(context.Background()) })
	call := func(path, body string) (int, string) {
		res, err := http.Post(srv.URL()+path, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	code, body := call("/v1/tubes/dead/redrive", `{"to": "retry"}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, `"moved": 1`)
	js, err := leader.StatsJob(id)
	require.NoError(t, err)
	assert.Equal(t, "retry", js.Tube)

	code, body = call(fmt.Sprintf("/v1/jobs/%d/move", id), `{"tube": "dead"}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, `"moved": true`)
	code, body = call("/v1/jobs/99999/move", `{"tube": "dead"}`)
	assert.Equal(t, http.StatusNotFound, code, body)
	code, body = call("/v1/tubes/nope/redrive", `{}`)
	assert.Equal(t, http.StatusNotFound, code, body)
	_, _, err = ss.ReserveJob(id)
	require.NoError(t, err)
	code, body = call(fmt.Sprintf("/v1/jobs/%d/move", id), `{"tube": "x"}`)
	assert.Equal(t, http.StatusConflict, code, body)

	lost.Store(true)
	code, body = call("/v1/tubes/dead/redrive", `{}`)
	assert.Equal(t, http.StatusMisdirectedRequest, code, body)
	res, err := http.Get(srv.URL() + fmt.Sprintf("/v1/jobs/%d", id))
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusMisdirectedRequest, res.StatusCode, "reading stays the leader's")
}
