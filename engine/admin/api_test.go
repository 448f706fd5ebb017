package admin

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

func TestAPIStats(t *testing.T) {
	s := newStack(t)
	scripted(t, s)
	var st serverStats
	s.json(http.MethodGet, "/v1/stats", http.StatusOK, &st)
	assert.Equal(t, stateCounts{Ready: 1, Reserved: 1, Delayed: 1, Buried: 1}, st.Jobs)
	assert.Equal(t, 2, st.Tubes)
	assert.Equal(t, uint64(5), st.TotalJobs)
	assert.Equal(t, int64(1), st.Connections)
	assert.Equal(t, int64(1), st.Producers)
	assert.Equal(t, uint64(5), st.Commands["put"])
	assert.Equal(t, uint64(1), st.Commands["bury"])
	assert.Equal(t, "1.2.3-test", st.Version)
	assert.True(t, st.MutationsAllowed)
	assert.False(t, st.Draining)
}

func TestAPITubes(t *testing.T) {
	s := newStack(t)
	scripted(t, s)
	s.clock.Advance(4 * time.Second)
	var tl tubesJSON
	s.json(http.MethodGet, "/v1/tubes", http.StatusOK, &tl)
	assert.Equal(t, []string{"default", "work"}, tubeNames(tl))
	assert.False(t, tl.Truncated)
	w := tl.Tubes[1]
	assert.Equal(t, stateCounts{Ready: 1, Reserved: 1, Delayed: 1, Buried: 1}, w.Jobs)
	assert.Equal(t, uint64(5), w.TotalJobs)
	assert.Equal(t, 4.0, w.OldestReadyAgeSeconds)
	assert.Equal(t, "bad_limit", s.apiError(http.MethodGet, "/v1/tubes?limit=0", http.StatusBadRequest))

	var one tubeJSON
	s.json(http.MethodGet, "/v1/tubes/work", http.StatusOK, &one)
	assert.Equal(t, w, one)
	assert.Equal(t, "not_found", s.apiError(http.MethodGet, "/v1/tubes/nope", http.StatusNotFound))
	assert.Equal(t, "bad_tube_name", s.apiError(http.MethodGet, "/v1/tubes/-x", http.StatusBadRequest))
	assert.Equal(t, "bad_tube_name", s.apiError(http.MethodGet, "/v1/tubes/a%20b", http.StatusBadRequest))
}

// TestAPITubeNamesWithPathCharacters checks that tube names holding '/',
// '.', '$' and parentheses reach the API when percent-encoded.
func TestAPITubeNamesWithPathCharacters(t *testing.T) {
	s := newStack(t)
	ss := s.q.NewSession(nil)
	defer ss.Close()
	for _, name := range []string{"a/b", "..", "x;$(y)", "+."} {
		require.NoError(t, ss.Use([]byte(name)))
		_, _, err := ss.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte("x")})
		require.NoError(t, err)
		var one tubeJSON
		s.json(http.MethodGet, "/v1/tubes/"+escapeAll(name), http.StatusOK, &one)
		assert.Equal(t, name, one.Name)
		assert.Equal(t, int64(1), one.Jobs.Ready)
	}
}

// escapeAll percent-encodes every byte (as a careful client may).
func escapeAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

func TestAPIJob(t *testing.T) {
	s := newStack(t)
	c := s.client()
	tube := beanstalk.NewTube(c, "bodies")
	body := []byte("héllo <b>&\x00\xff")
	id, err := tube.Put(body, 42, 0, 90*time.Second)
	require.NoError(t, err)
	s.clock.Advance(3 * time.Second)

	var j jobJSON
	s.json(http.MethodGet, fmt.Sprint("/v1/jobs/", id), http.StatusOK, &j)
	assert.Equal(t, id, j.ID)
	assert.Equal(t, "bodies", j.Tube)
	assert.Equal(t, "ready", j.State)
	assert.Equal(t, uint32(42), j.Pri)
	assert.Equal(t, 3.0, j.AgeSeconds)
	assert.Equal(t, 90.0, j.TTRSeconds)
	assert.Equal(t, len(body), j.Body.Size)
	assert.False(t, j.Body.Truncated)
	assert.False(t, j.Body.UTF8)
	raw, err := base64.StdEncoding.DecodeString(j.Body.Base64)
	require.NoError(t, err)
	assert.Equal(t, body, raw)
	assert.Equal(t, "héllo <b>&\x00\uFFFD", j.Body.Text)

	// The raw response never holds markup: encoding/json escapes < > &.
	_, b := s.do(http.MethodGet, fmt.Sprint("/v1/jobs/", id))
	assert.NotContains(t, string(b), "<b>")
	assert.Contains(t, string(b), `\u003cb\u003e`)

	s.json(http.MethodGet, fmt.Sprint("/v1/jobs/", id, "?peek_bytes=2"), http.StatusOK, &j)
	assert.True(t, j.Body.Truncated)
	assert.Equal(t, 2, j.Body.Returned)
	assert.Equal(t, "h", j.Body.Text, "the cut inside é is left out of the text")
	assert.True(t, j.Body.UTF8)

	assert.Equal(t, "bad_peek_bytes", s.apiError(http.MethodGet, fmt.Sprint("/v1/jobs/", id, "?peek_bytes=-1"), http.StatusBadRequest))
	assert.Equal(t, "not_found", s.apiError(http.MethodGet, "/v1/jobs/999", http.StatusNotFound))
	assert.Equal(t, "bad_job_id", s.apiError(http.MethodGet, "/v1/jobs/abc", http.StatusBadRequest))
	assert.Equal(t, "bad_job_id", s.apiError(http.MethodGet, "/v1/jobs/0", http.StatusBadRequest))
}

func TestAPIMethodsAndPaths(t *testing.T) {
	s := newStack(t)
	for _, c := range []struct{ method, path, allow string }{
		{http.MethodPost, "/v1/stats", "GET"},
		{http.MethodGet, "/v1/tubes/default/kick", "POST"},
		{http.MethodPut, "/v1/jobs/1", ""},
		{http.MethodDelete, "/v1/tubes/default", "GET"},
	} {
		req, err := http.NewRequest(c.method, s.adm.URL()+c.path, nil)
		require.NoError(t, err)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode, "%s %s", c.method, c.path)
		assert.Contains(t, string(b), `"method_not_allowed"`)
		assert.Contains(t, res.Header.Get("Allow"), c.allow)
		assert.Equal(t, "application/json; charset=utf-8", res.Header.Get("Content-Type"))
	}
	assert.Equal(t, "no_such_endpoint", s.apiError(http.MethodGet, "/v1/nope", http.StatusNotFound))
	assert.Equal(t, "no_such_endpoint", s.apiError(http.MethodGet, "/v1/tubes/default/jobs/extra", http.StatusNotFound))
	assert.Equal(t, "not_found", s.apiError(http.MethodGet, "/nope.html", http.StatusNotFound))
	assert.Equal(t, "method_not_allowed", s.apiError(http.MethodPost, "/", http.StatusMethodNotAllowed))
}

func TestAPIKickTube(t *testing.T) {
	s := newStack(t)
	scripted(t, s) // work: 1 buried, 1 delayed
	var out map[string]any
	s.json(http.MethodPost, "/v1/tubes/work/kick?n=5", http.StatusOK, &out)
	assert.Equal(t, 1.0, out["kicked"], "buried jobs first, and only them")
	ti, err := s.q.InspectTube([]byte("work"))
	require.NoError(t, err)
	assert.Equal(t, int64(0), ti.Buried)
	assert.Equal(t, int64(2), ti.Ready)
	s.json(http.MethodPost, "/v1/tubes/work/kick", http.StatusOK, &out)
	assert.Equal(t, 1.0, out["kicked"], "then the delayed one")
	s.json(http.MethodPost, "/v1/tubes/work/kick", http.StatusOK, &out)
	assert.Equal(t, 0.0, out["kicked"])

	assert.Equal(t, "bad_n", s.apiError(http.MethodPost, "/v1/tubes/work/kick?n=0", http.StatusBadRequest))
	assert.Equal(t, "bad_n", s.apiError(http.MethodPost, "/v1/tubes/work/kick?n=x", http.StatusBadRequest))
	assert.Equal(t, "not_found", s.apiError(http.MethodPost, "/v1/tubes/nope/kick", http.StatusNotFound))
	_, err = s.q.InspectTube([]byte("nope"))
	assert.ErrorIs(t, err, jobs.ErrNotFound, "a kick on a missing tube must not create it")
}

func TestAPIPauseTube(t *testing.T) {
	s := newStack(t)
	var out map[string]any
	s.json(http.MethodPost, "/v1/tubes/default/pause?seconds=30", http.StatusOK, &out)
	ts, err := s.q.StatsTube([]byte("default"))
	require.NoError(t, err)
	assert.Equal(t, 30*time.Second, ts.Pause)
	var one tubeJSON
	s.json(http.MethodGet, "/v1/tubes/default", http.StatusOK, &one)
	assert.True(t, one.Paused)
	assert.Equal(t, 30.0, one.PauseLeftSeconds)
	assert.Equal(t, "bad_seconds", s.apiError(http.MethodPost, "/v1/tubes/default/pause", http.StatusBadRequest))
	assert.Equal(t, "bad_seconds", s.apiError(http.MethodPost, "/v1/tubes/default/pause?seconds=-1", http.StatusBadRequest))
	assert.Equal(t, "not_found", s.apiError(http.MethodPost, "/v1/tubes/nope/pause?seconds=1", http.StatusNotFound))
}

func TestAPIDeleteJob(t *testing.T) {
	s := newStack(t)
	c := s.client()
	tube := beanstalk.NewTube(c, "default")
	ready, err := tube.Put([]byte("a"), 1, 0, time.Minute)
	require.NoError(t, err)
	held, err := tube.Put([]byte("b"), 2, 0, time.Minute)
	require.NoError(t, err)
	_, err = tube.Put([]byte("c"), 3, 0, time.Minute)
	require.NoError(t, err)
	// The worker reserves the pri-1 job; the pri-2 one stays ready.
	id, _, err := c.Reserve(0)
	require.NoError(t, err)
	require.Equal(t, ready, id)
	ready, held = held, ready

	var out map[string]any
	s.json(http.MethodDelete, fmt.Sprint("/v1/jobs/", ready), http.StatusOK, &out)
	assert.Equal(t, true, out["deleted"])
	_, err = s.q.StatsJob(ready)
	assert.ErrorIs(t, err, jobs.ErrNotFound)
	assert.Equal(t, "not_found", s.apiError(http.MethodDelete, fmt.Sprint("/v1/jobs/", ready), http.StatusNotFound))
	assert.Equal(t, "reserved", s.apiError(http.MethodDelete, fmt.Sprint("/v1/jobs/", held), http.StatusConflict))
	assert.NoError(t, c.Delete(held), "the worker still owns its job")
}

func TestAPIKickJob(t *testing.T) {
	s := newStack(t)
	c := s.client()
	tube := beanstalk.NewTube(c, "default")
	delayed, err := tube.Put([]byte("d"), 1, time.Hour, time.Minute)
	require.NoError(t, err)
	ready, err := tube.Put([]byte("r"), 1, 0, time.Minute)
	require.NoError(t, err)
	var out map[string]any
	s.json(http.MethodPost, fmt.Sprint("/v1/jobs/", delayed, "/kick"), http.StatusOK, &out)
	js, err := s.q.StatsJob(delayed)
	require.NoError(t, err)
	assert.Equal(t, jobs.Ready, js.State)
	assert.Equal(t, uint32(1), js.Kicks)
	assert.Equal(t, "not_kickable", s.apiError(http.MethodPost, fmt.Sprint("/v1/jobs/", ready, "/kick"), http.StatusConflict))
	assert.Equal(t, "not_found", s.apiError(http.MethodPost, "/v1/jobs/12345/kick", http.StatusNotFound))
}

// TestAPIActionWaitsForJournal checks an action is answered only when the
// journal commits, and with 503 when the journal has failed.
func TestAPIActionWaitsForJournal(t *testing.T) {
	j := &failingJournal{}
	clk := jobs.NewManualClock(t0)
	s := newStackOn(t, jobs.New(jobs.Config{Clock: clk, Journal: j}), clk)
	ss := s.q.NewSession(nil)
	defer ss.Close()
	a, _, err := ss.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte("a")})
	require.NoError(t, err)
	b, _, err := ss.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte("b")})
	require.NoError(t, err)
	s.json(http.MethodDelete, fmt.Sprint("/v1/jobs/", a), http.StatusOK, nil)
	j.fail(errors.New("disk gone"))
	assert.Equal(t, "journal", s.apiError(http.MethodDelete, fmt.Sprint("/v1/jobs/", b), http.StatusServiceUnavailable))
}

// TestAPIListAndClearTube: a tube's jobs are listed by state, a page at a
// time, with their bodies previewed; clearing it deletes its ready, delayed
// and buried jobs and says how many.
func TestAPIListAndClearTube(t *testing.T) {
	s := newStack(t)
	ss := s.q.NewSession(nil)
	defer ss.Close()
	require.NoError(t, ss.Use([]byte("t")))
	var ids []uint64
	for _, body := range []string{"one", "two", "three"} {
		id, _, err := ss.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte(body)})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	_, _, err := ss.Put(jobs.PutRequest{TTR: time.Minute, Delay: time.Hour, Body: []byte("later")})
	require.NoError(t, err)

	var page jobListJSON
	s.json(http.MethodGet, "/v1/tubes/t/jobs?state=ready&offset=1&count=1", http.StatusOK, &page)
	assert.Equal(t, int64(3), page.Total)
	require.Len(t, page.Jobs, 1)
	assert.Equal(t, ids[1], page.Jobs[0].ID)
	assert.Equal(t, "two", page.Jobs[0].Body.Text)
	s.json(http.MethodGet, "/v1/tubes/t/jobs?state=delayed", http.StatusOK, &page)
	assert.Len(t, page.Jobs, 1)

	var cleared map[string]any
	s.json(http.MethodPost, "/v1/tubes/t/clear", http.StatusOK, &cleared)
	assert.Equal(t, map[string]any{"tube": "t", "deleted": float64(4)}, cleared)
	s.json(http.MethodGet, "/v1/tubes/t/jobs?state=ready", http.StatusOK, &page)
	assert.Empty(t, page.Jobs)
}

// TestAPIListJobsValidation: listing and clearing validate their input
// before touching the queue.
func TestAPIListJobsValidation(t *testing.T) {
	s := newStack(t)
	assert.Equal(t, "bad_state", s.apiError(http.MethodGet, "/v1/tubes/default/jobs?state=gone", http.StatusBadRequest))
	assert.Equal(t, "bad_state", s.apiError(http.MethodGet, "/v1/tubes/default/jobs", http.StatusBadRequest))
	assert.Equal(t, "bad_paging", s.apiError(http.MethodGet, "/v1/tubes/default/jobs?state=ready&count=1001", http.StatusBadRequest))
	assert.Equal(t, "bad_paging", s.apiError(http.MethodGet, "/v1/tubes/default/jobs?state=ready&offset=-1", http.StatusBadRequest))
	assert.Equal(t, "not_found", s.apiError(http.MethodGet, "/v1/tubes/nope/jobs?state=ready", http.StatusNotFound))
	assert.Equal(t, "not_found", s.apiError(http.MethodPost, "/v1/tubes/nope/clear", http.StatusNotFound))
}

// TestMutationRefusedOffLoopback: on a wildcard address mutations are 403,
// reads still work.
func TestMutationRefusedOffLoopback(t *testing.T) {
	s := newStack(t, func(o *Options) { o.Addr = "0.0.0.0:0" })
	_, port, _ := net.SplitHostPort(s.adm.Addr().String())
	url := "http://127.0.0.1:" + port
	res, err := http.Post(url+"/v1/tubes/default/pause?seconds=5", "", nil)
	require.NoError(t, err)
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	assert.Equal(t, http.StatusForbidden, res.StatusCode)
	assert.Contains(t, string(b), `"forbidden"`)
	ts, _ := s.q.StatsTube([]byte("default"))
	assert.Zero(t, ts.Pauses)
	res, err = http.Get(url + "/v1/stats")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
}

// TestMutationGuards: a rebound DNS name (Host) or a foreign Origin is
// refused even on loopback; the same origin is accepted.
func TestMutationGuards(t *testing.T) {
	s := newStack(t)
	path := "/v1/tubes/default/pause?seconds=5"
	code, _ := s.do(http.MethodPost, path, "Host", "evil.example:80")
	assert.Equal(t, http.StatusForbidden, code)
	code, _ = s.do(http.MethodPost, path, "Origin", "http://evil.example")
	assert.Equal(t, http.StatusForbidden, code)
	code, _ = s.do(http.MethodPost, path, "Origin", "null")
	assert.Equal(t, http.StatusForbidden, code)
	ts, _ := s.q.StatsTube([]byte("default"))
	assert.Zero(t, ts.Pauses)
	code, b := s.do(http.MethodPost, path, "Origin", s.adm.URL())
	assert.Equal(t, http.StatusOK, code, string(b))
	code, b = s.do(http.MethodPost, path, "Host", "localhost")
	assert.Equal(t, http.StatusOK, code, string(b))
	// Reads are allowed whatever the Host.
	code, _ = s.do(http.MethodGet, "/v1/stats", "Host", "evil.example")
	assert.Equal(t, http.StatusOK, code)
}

func TestUnixSocketListener(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "admin.sock")
	s := newStack(t, func(o *Options) { o.Addr = "unix:" + sock })
	hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	res, err := hc.Post("http://stalkd/v1/tubes/default/pause?seconds=5", "", nil)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)
	ts, _ := s.q.StatsTube([]byte("default"))
	assert.Equal(t, uint64(1), ts.Pauses)
	require.NoError(t, s.adm.Stop(t.Context()))
	// A stale socket file is replaced on the next start.
	a2, err := Start(Options{Addr: "unix:" + sock, Queue: s.q})
	require.NoError(t, err)
	require.NoError(t, a2.Stop(t.Context()))
}

func TestSecurityHeaders(t *testing.T) {
	s := newStack(t)
	for _, p := range []string{"/", "/app.js", "/v1/stats", "/metrics"} {
		res, err := http.Get(s.adm.URL() + p)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode, p)
		assert.Contains(t, res.Header.Get("Content-Security-Policy"), "script-src 'self'", p)
		assert.NotContains(t, res.Header.Get("Content-Security-Policy"), "unsafe", p)
		assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"), p)
		assert.Equal(t, "DENY", res.Header.Get("X-Frame-Options"), p)
	}
}

func TestStartOptions(t *testing.T) {
	_, err := Start(Options{Addr: "127.0.0.1:0"})
	assert.Error(t, err, "no queue")
	_, err = Start(Options{Queue: jobs.New(jobs.Config{})})
	assert.Error(t, err, "no address")
	_, err = Start(Options{Addr: "256.0.0.1:0", Queue: jobs.New(jobs.Config{})})
	assert.Error(t, err)
}

func TestAPIHistory(t *testing.T) {
	s := newStack(t, func(o *Options) { o.SampleInterval = time.Hour })
	scripted(t, s)
	var h historyJSON
	s.json(http.MethodGet, "/v1/history", http.StatusOK, &h)
	assert.Equal(t, 3600.0, h.IntervalSeconds)
	require.NotEmpty(t, h.Samples)
	last := h.Samples[len(h.Samples)-1]
	assert.Equal(t, uint64(5), last.Puts)
	assert.Equal(t, uint64(3), last.Reserves)
	assert.Equal(t, uint64(1), last.Deletes)
	assert.Equal(t, stateCounts{Ready: 1, Reserved: 1, Delayed: 1, Buried: 1}, last.Jobs)
	for i := 1; i < len(h.Samples); i++ {
		assert.LessOrEqual(t, h.Samples[i-1].UnixMillis, h.Samples[i].UnixMillis)
	}
}

// TestHistoryRing checks the ring keeps the newest samples, oldest first.
func TestHistoryRing(t *testing.T) {
	h := newHistory(3)
	assert.Empty(t, h.samples())
	for i := range 5 {
		h.add(sample{UnixMillis: int64(i)})
	}
	var got []int64
	for _, s := range h.samples() {
		got = append(got, s.UnixMillis)
	}
	assert.Equal(t, []int64{2, 3, 4}, got)
}
