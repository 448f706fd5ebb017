package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// latencies collects durations; safe for concurrent use.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func newLatencies() *latencies { return &latencies{} }

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

// summary returns "p50 p90 p99 max" of what was collected.
func (l *latencies) summary() string {
	l.mu.Lock()
	d := slices.Clone(l.d)
	l.mu.Unlock()
	if len(d) == 0 {
		return "no samples"
	}
	slices.Sort(d)
	at := func(q float64) time.Duration { return d[min(int(q*float64(len(d))), len(d)-1)] }
	return fmt.Sprintf("p50 %-10v p90 %-10v p99 %-10v max %v (n=%d)",
		at(0.50), at(0.90), at(0.99), d[len(d)-1], len(d))
}

// runLoad sends c.load enqueue requests from c.clients goroutines, waits
// until the workers have handled them all, and prints the figures.
func runLoad(ctx context.Context, g *gateway, base string, c config) error {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: c.clients}}
	reqLat := newLatencies()
	var next, errs atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for range c.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(c.load) && ctx.Err() == nil {
				t0 := time.Now()
				resp, err := client.Post(base+"/jobs", "text/plain", strings.NewReader(`{"hello":"world"}`))
				if err != nil {
					errs.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusAccepted {
					errs.Add(1)
					continue
				}
				reqLat.add(time.Since(t0))
			}
		}()
	}
	wg.Wait()
	enqueued := time.Since(start)
	want := int64(c.load) - errs.Load()
	for g.handled.Load() < want && ctx.Err() == nil {
		time.Sleep(time.Millisecond) // a report loop, not a test barrier
	}
	total := time.Since(start)
	fmt.Printf("gateway load: %d requests, %d clients, %d workers, persistent=%v\n",
		c.load, c.clients, c.workers, c.dir != "")
	fmt.Printf("  HTTP enqueue (client to 202)  %s\n", reqLat.summary())
	fmt.Printf("  Put to handler start          %s\n", g.lat.summary())
	fmt.Printf("  enqueued/s %.0f, handled/s %.0f, errors %d\n",
		float64(want)/enqueued.Seconds(), float64(g.handled.Load())/total.Seconds(), errs.Load())
	return ctx.Err()
}
