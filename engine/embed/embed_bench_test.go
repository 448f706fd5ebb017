package embed

import (
	"context"
	"encoding/binary"
	"math/bits"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The embedded queue's latency and throughput: P producers put b.N jobs
// stamped with the time of the Put call, W workers blocked in Reserve take
// them and delete them, and the time from the stamp to Reserve returning
// goes into a histogram. Reported: p50-ns, p99-ns and jobs/s, beside the
// same work through the protocol on loopback (loopback_bench_test.go: a
// node serves the queue) and over a buffered channel (the floor: no queue
// at all).
//
// "latency" runs are closed loops: each producer waits until its job is
// taken before it puts the next, so with W >= P the workers are blocked in
// Reserve when a job arrives and the figure is the hand-off, not time spent
// in a backlog. "throughput" runs put as fast as they can; their jobs/s is
// the figure to read (their latencies include the backlog).
//
//	go test ./engine -run '^$' -bench 'Embed|Loopback|ChannelFloor' -benchtime 200000x

var benchShapes = []struct {
	name               string
	producers, workers int
	closed             bool
}{
	{"latency/p1-w1", 1, 1, true},
	{"latency/p16-w16", 16, 16, true},
	{"throughput/p16-w16", 16, 16, false},
}

func BenchmarkEmbedLatency(b *testing.B) {
	for _, durable := range []bool{false, true} {
		for _, sh := range benchShapes {
			name := "mem/" + sh.name
			if durable {
				name = "fsync/" + sh.name
			}
			b.Run(name, func(b *testing.B) {
				o := Options{}
				if durable {
					o.Dir = b.TempDir() // SyncInterval 0: fsync before Put returns
				}
				q := openTest(b, o)
				ctx := context.Background()
				runLatency(b, sh.producers, sh.workers, sh.closed,
					func(p int) func(stamp []byte) {
						return func(stamp []byte) {
							if _, err := q.Put(ctx, "bench", stamp, PutOptions{}); err != nil {
								b.Error(err)
							}
						}
					},
					func(w int, stop <-chan struct{}) func() ([]byte, bool) {
						wctx, cancel := context.WithCancel(ctx)
						go func() { <-stop; cancel() }()
						var last Job
						return func() ([]byte, bool) {
							if last.l != nil {
								if err := last.Delete(ctx); err != nil {
									b.Error(err)
								}
							}
							job, err := q.Reserve(wctx, "bench")
							if err != nil {
								return nil, false
							}
							last = job
							return job.Body, true
						}
					})
			})
		}
	}
}

func BenchmarkChannelFloor(b *testing.B) {
	for _, sh := range benchShapes {
		b.Run(sh.name, func(b *testing.B) {
			ch := make(chan []byte, 1024)
			runLatency(b, sh.producers, sh.workers, sh.closed,
				func(int) func([]byte) {
					return func(stamp []byte) { ch <- append([]byte(nil), stamp...) }
				},
				func(_ int, stop <-chan struct{}) func() ([]byte, bool) {
					return func() ([]byte, bool) {
						select {
						case v := <-ch:
							return v, true
						case <-stop:
							return nil, false
						}
					}
				})
		})
	}
}

// runLatency runs the measurement: producers call put with a 16-byte stamp
// (nanoseconds since the start, producer number), workers call take until
// it reports false (after stop closes) and record the latency of every
// stamp they get. closed: a producer waits for its job to be taken before
// the next put.
func runLatency(b *testing.B, producers, workers int, closed bool,
	newPut func(p int) func(stamp []byte),
	newTake func(w int, stop <-chan struct{}) func() ([]byte, bool),
) {
	puts := make([]func([]byte), producers)
	for p := range puts {
		puts[p] = newPut(p)
	}
	stop := make(chan struct{})
	takes := make([]func() ([]byte, bool), workers)
	for w := range takes {
		takes[w] = newTake(w, stop)
	}
	hists := make([]latencyHist, workers)
	acks := make([]chan struct{}, producers)
	for p := range acks {
		acks[p] = make(chan struct{}, 1)
	}
	var got atomic.Int64
	allGot := make(chan struct{})
	base := time.Now()
	b.ResetTimer()

	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				stamp, ok := takes[w]()
				if !ok {
					return
				}
				hists[w].add(time.Since(base) - time.Duration(binary.LittleEndian.Uint64(stamp)))
				if closed {
					acks[binary.LittleEndian.Uint64(stamp[8:])] <- struct{}{}
				}
				if got.Add(1) == int64(b.N) {
					close(allGot)
				}
			}
		}()
	}
	var pwg sync.WaitGroup
	for p := range producers {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			var stamp [16]byte
			binary.LittleEndian.PutUint64(stamp[8:], uint64(p))
			for i := p; i < b.N; i += producers {
				binary.LittleEndian.PutUint64(stamp[:], uint64(time.Since(base)))
				puts[p](stamp[:])
				if closed {
					<-acks[p]
				}
			}
		}()
	}
	pwg.Wait()
	<-allGot
	b.StopTimer()
	close(stop)
	wg.Wait()

	var all latencyHist
	for i := range hists {
		all.merge(&hists[i])
	}
	b.ReportMetric(float64(all.quantile(0.50)), "p50-ns")
	b.ReportMetric(float64(all.quantile(0.99)), "p99-ns")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

// latencyHist is a log-linear histogram of durations: 16 linear buckets
// per power of two, so a quantile is within about 6% of the true value.
type latencyHist struct {
	counts [64 * 16]uint64
	n      uint64
}

func (h *latencyHist) add(d time.Duration) {
	h.counts[histBucket(uint64(max(d, 0)))]++
	h.n++
}

func (h *latencyHist) merge(o *latencyHist) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
}

// quantile returns the upper bound of the bucket holding quantile q.
func (h *latencyHist) quantile(q float64) time.Duration {
	want := uint64(q*float64(h.n)) + 1
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= want {
			return time.Duration(histUpper(i))
		}
	}
	return 0
}

func histBucket(v uint64) int {
	if v < 16 {
		return int(v)
	}
	e := bits.Len64(v) - 5 // v >> e is in 16..31
	return (e+1)*16 + int(v>>e) - 16
}

func histUpper(i int) uint64 {
	if i < 16 {
		return uint64(i)
	}
	e := i/16 - 1
	return (uint64(i%16+16)+1)<<e - 1
}
