package admin

import (
	"fmt"
	"io"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// benchQueue returns a queue with n tubes of 1 to 10 ready jobs each.
func benchQueue(b *testing.B, n int) *jobs.Queue {
	q := jobs.New(jobs.Config{Clock: jobs.NewManualClock(t0)})
	ss := q.NewSession(nil)
	for i := range n {
		if err := ss.Use(fmt.Appendf(nil, "tube-%05d", i)); err != nil {
			b.Fatal(err)
		}
		for range 1 + i%10 {
			if _, _, err := ss.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte("x")}); err != nil {
				b.Fatal(err)
			}
		}
	}
	return q
}

// BenchmarkScrape measures one whole /metrics scrape (collection and text
// encoding, through the handler) with 10k tubes, under the default cap of
// 1000 tubes and with no cap.
func BenchmarkScrape(b *testing.B) {
	for _, c := range []struct {
		name string
		max  int
	}{{"10k_tubes_cap_1000", 0}, {"10k_tubes_no_cap", -1}} {
		b.Run(c.name, func(b *testing.B) {
			q := benchQueue(b, 10000)
			o, _ := Options{Addr: "x", Queue: q, MetricsMaxTubes: c.max}.withDefaults()
			s := &Server{opts: o, q: q}
			s.reg = newRegistry(s)
			s.hist = newHistory(1)
			h := s.routes()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
				if rec.Code != 200 {
					b.Fatal(rec.Code)
				}
				_, _ = io.Copy(io.Discard, rec.Body)
			}
		})
	}
}

// BenchmarkTubesAPI measures GET /v1/tubes with 10k tubes (1000 listed).
func BenchmarkTubesAPI(b *testing.B) {
	q := benchQueue(b, 10000)
	o, _ := Options{Addr: "x", Queue: q}.withDefaults()
	s := &Server{opts: o, q: q}
	s.reg = newRegistry(s)
	s.hist = newHistory(1)
	h := s.routes()
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/tubes", nil))
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
	}
}
