package admin

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/jobs"
)

// t0 is the manual clock's start: an arbitrary Unix-epoch instant.
const t0 = int64(1_700_000_000) * int64(time.Second)

// stack is a protocol server and an admin listener on one queue driven by a
// manual clock (so ages are exact), both on 127.0.0.1 port 0.
type stack struct {
	t     *testing.T
	clock *jobs.ManualClock
	q     *jobs.Queue
	srv   *engine.Server
	adm   *Server
}

func newStack(t *testing.T, opts ...func(*Options)) *stack {
	t.Helper()
	clk := jobs.NewManualClock(t0)
	q := jobs.New(jobs.Config{Clock: clk})
	return newStackOn(t, q, clk, opts...)
}

func newStackOn(t *testing.T, q *jobs.Queue, clk *jobs.ManualClock, opts ...func(*Options)) *stack {
	t.Helper()
	log := zerolog.New(zerolog.NewTestWriter(t))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, err := engine.Listen(ctx, engine.Config{Addr: "127.0.0.1:0", Logger: log, EventLoops: 1})
	require.NoError(t, err)
	require.NoError(t, srv.Serve(engine.Backend{Queue: q}))
	t.Cleanup(func() { _ = srv.Stop(context.Background()) })
	o := Options{Addr: "127.0.0.1:0", Queue: q, Logger: log, Version: "1.2.3-test",
		Serving: func() error {
			select {
			case <-srv.Done():
				if err := srv.Err(); err != nil {
					return err
				}
				return errors.New("protocol server stopped")
			default:
				return nil
			}
		}}
	for _, f := range opts {
		f(&o)
	}
	adm, err := Start(o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = adm.Stop(context.Background()) })
	return &stack{t: t, clock: clk, q: q, srv: srv, adm: adm}
}

// client dials the protocol server with go-beanstalk.
func (s *stack) client() *beanstalk.Conn {
	s.t.Helper()
	c, err := beanstalk.Dial("tcp", s.srv.Addr().String())
	require.NoError(s.t, err)
	s.t.Cleanup(func() { _ = c.Close() })
	return c
}

// do sends a request to the admin listener and returns the status and body.
func (s *stack) do(method, path string, hdr ...string) (int, []byte) {
	s.t.Helper()
	return s.request(method, path, nil, hdr)
}

// request does one request (a JSON body when body is not nil; hdr is
// name/value pairs, "Host" setting the request's host) and returns the
// status and response.
func (s *stack) request(method, path string, body io.Reader, hdr []string) (int, []byte) {
	s.t.Helper()
	req, err := http.NewRequest(method, s.adm.URL()+path, body)
	require.NoError(s.t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(s.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(s.t, err)
	return res.StatusCode, b
}

// getJSON does a request, checks the status and decodes the JSON body.
func (s *stack) json(method, path string, want int, v any) {
	s.t.Helper()
	code, b := s.do(method, path)
	require.Equal(s.t, want, code, "%s %s: %s", method, path, b)
	if v != nil {
		require.NoError(s.t, json.Unmarshal(b, v), string(b))
	}
}

// apiError decodes an error response and returns its code.
func (s *stack) apiError(method, path string, want int) string {
	s.t.Helper()
	var e apiErr
	s.json(method, path, want, &e)
	require.NotEmpty(s.t, e.Error.Message)
	return e.Error.Code
}

// scrape fetches /metrics and parses the text exposition.
func (s *stack) scrape() map[string]*dto.MetricFamily {
	s.t.Helper()
	code, b := s.do(http.MethodGet, "/metrics")
	require.Equal(s.t, http.StatusOK, code, string(b))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(b)))
	require.NoError(s.t, err)
	return fams
}

// value returns the value of the series of family name whose labels are
// exactly labels (pairs), and whether it exists.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels)/2 {
			continue
		}
		for i := 0; i < len(labels); i += 2 {
			found := false
			for _, l := range m.GetLabel() {
				if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Untyped != nil:
			return m.GetUntyped().GetValue(), true
		}
	}
	return 0, false
}

func runtimeVersion() string { return goVersion }

var goVersion = runtime.Version()

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
