package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/stalkd/stalkd/engine/embed"
)

// requestTimeout bounds how long an enqueue may wait for durability.
const requestTimeout = 5 * time.Second

// gateway holds the queue and the counters of the HTTP side and the
// workers. Safe for concurrent use.
type gateway struct {
	q   *embed.Queue
	cfg config

	handled, failed, seen atomic.Int64
	lat                   *latencies // Put to handler start, for -load
	times                 *putTimes
}

func newGateway(q *embed.Queue, c config) *gateway {
	return &gateway{q: q, cfg: c, lat: newLatencies(), times: newPutTimes()}
}

func (g *gateway) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /jobs", g.enqueue)
	mux.HandleFunc("GET /stats", g.stats)
	return mux
}

// enqueue puts the request body as a job and answers 202 with its id once
// the job is durable.
func (g *gateway) enqueue(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), requestTimeout)
	defer cancel()
	o, tube, err := putOptions(r, g.cfg.tube)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(g.cfg.maxJobSize)))
	if err != nil {
		http.Error(w, "job body too big", http.StatusRequestEntityTooLarge)
		return
	}
	begin := time.Now()
	id, err := g.q.Put(ctx, tube, body, o)
	if err != nil {
		http.Error(w, err.Error(), statusOf(err))
		return
	}
	if d, ok := g.times.putDone(id, begin); ok {
		g.lat.add(d)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	fmt.Fprintf(w, "{\"id\":%d}\n", id)
}

// putOptions reads tube, pri, delay and ttr from the query.
func putOptions(r *http.Request, defTube string) (embed.PutOptions, string, error) {
	var o embed.PutOptions
	qs := r.URL.Query()
	tube := qs.Get("tube")
	if tube == "" {
		tube = defTube
	}
	if v := qs.Get("pri"); v != "" {
		p, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return o, "", fmt.Errorf("pri: %w", err)
		}
		o.Pri = uint32(p)
	}
	for name, dst := range map[string]*time.Duration{"delay": &o.Delay, "ttr": &o.TTR} {
		if v := qs.Get(name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				return o, "", fmt.Errorf("%s: want a duration like 30s", name)
			}
			*dst = d
		}
	}
	return o, tube, nil
}

// statusOf maps the queue's errors to HTTP statuses: one table.
func statusOf(err error) int {
	switch {
	case errors.Is(err, embed.ErrJobTooBig):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, embed.ErrBadTubeName):
		return http.StatusBadRequest
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	default: // draining, journal full or failed, closed
		return http.StatusServiceUnavailable
	}
}

// handle is the in-process worker's handler: it records the latency from
// Put, simulates the work and, with -fail-every, fails some jobs once.
func (g *gateway) handle(ctx context.Context, job embed.Job) error {
	if d, ok := g.times.handlerStarted(job.ID, time.Now()); ok {
		g.lat.add(d)
	}
	if n := g.seen.Add(1); g.cfg.failEvery > 0 && n%int64(g.cfg.failEvery) == 0 {
		if st, err := job.Stats(); err == nil && st.Releases == 0 {
			g.failed.Add(1)
			return errors.New("simulated failure")
		}
	}
	if g.cfg.work > 0 {
		select {
		case <-time.After(g.cfg.work):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	g.handled.Add(1)
	return nil
}

func (g *gateway) stats(w http.ResponseWriter, _ *http.Request) {
	s := g.q.Stats()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"ready": s.Ready, "reserved": s.Reserved, "delayed": s.Delayed, "buried": s.Buried,
		"total_jobs": s.TotalJobs, "waiting_workers": s.Waiting,
		"handled": g.handled.Load(), "failed": g.failed.Load(),
	})
}
