package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/embed"
)

func testConfig(t *testing.T) config {
	c, err := parseFlags([]string{"-http", "127.0.0.1:0", "-z", "64", "-tube", "t"})
	require.NoError(t, err)
	return c
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "text/plain", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

func TestEnqueueAndHandle(t *testing.T) {
	c := testConfig(t)
	q, err := embed.Open(embed.Options{MaxJobSize: c.maxJobSize})
	require.NoError(t, err)
	defer q.Close()
	g := newGateway(q, c)
	srv := httptest.NewServer(g.routes())
	defer srv.Close()

	code, body := post(t, srv.URL+"/jobs?pri=5&ttr=30s", "hello")
	require.Equal(t, http.StatusAccepted, code, body)
	assert.Equal(t, "{\"id\":1}\n", body)
	job, err := q.TryReserve("t")
	require.NoError(t, err)
	st, err := job.Stats()
	require.NoError(t, err)
	assert.Equal(t, uint32(5), st.Pri)
	assert.Equal(t, 30*time.Second, st.TTR)
	assert.Equal(t, "hello", string(job.Body), "the body is exactly what the caller sent")
	require.NoError(t, g.handle(context.Background(), job))
	assert.Equal(t, int64(1), g.handled.Load())
	assert.Contains(t, g.lat.summary(), "n=1", "the put and its handler were paired")

	for _, c := range []struct {
		url, body string
		want      int
	}{
		{"/jobs", strings.Repeat("x", 65), http.StatusRequestEntityTooLarge},
		{"/jobs?tube=-bad", "x", http.StatusBadRequest},
		{"/jobs?delay=soon", "x", http.StatusBadRequest},
		{"/jobs?pri=-1", "x", http.StatusBadRequest},
	} {
		code, body := post(t, srv.URL+c.url, c.body)
		assert.Equal(t, c.want, code, "%s: %s", c.url, body)
	}
	q.Jobs().SetDraining(true)
	code, _ = post(t, srv.URL+"/jobs", "x")
	assert.Equal(t, http.StatusServiceUnavailable, code)

	resp, err := http.Get(srv.URL + "/stats")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(b), `"handled":1`)
}

// The whole program: a persistent queue, served on a beanstalk port, under
// a small self-load whose every job the in-process workers handle.
func TestRunWithLoad(t *testing.T) {
	c := testConfig(t)
	c.dir, c.beanstalkAddr, c.load, c.clients, c.failEvery = t.TempDir(), "127.0.0.1:0", 40, 4, 7
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, run(ctx, c, zerolog.New(zerolog.NewTestWriter(t))))
}

func TestFlags(t *testing.T) {
	_, err := parseFlags([]string{"-workers", "0"})
	assert.Error(t, err)
	_, err = parseFlags([]string{"-nope"})
	assert.Error(t, err)
}

// The pair is recorded whichever side comes second; unpaired handler
// starts (jobs of other producers) stay bounded.
func TestPutTimesPairEitherOrder(t *testing.T) {
	p := newPutTimes()
	t0 := time.Unix(100, 0)
	_, ok := p.putDone(1, t0)
	require.False(t, ok)
	d, ok := p.handlerStarted(1, t0.Add(3*time.Millisecond))
	require.True(t, ok)
	assert.Equal(t, 3*time.Millisecond, d)

	_, ok = p.handlerStarted(2, t0.Add(time.Millisecond))
	require.False(t, ok)
	d, ok = p.putDone(2, t0)
	require.True(t, ok)
	assert.Equal(t, time.Millisecond, d)

	for i := range maxUnpaired + 5 {
		p.handlerStarted(uint64(1000+i), t0)
	}
	assert.LessOrEqual(t, len(p.started), maxUnpaired)
	assert.Empty(t, p.put)
}
