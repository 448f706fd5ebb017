package jobs

import (
	"testing"
	"time"
)

// benchBody is shared by every job of a benchmark: the queue keeps the slice
// without copying, so the figures show the queue's own allocations (the job).
var benchBody = []byte("0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789")

// One session putting, reserving and deleting: the hot path of a worker.
func BenchmarkPutReserveDelete(b *testing.B) {
	q := New(Config{Clock: NewManualClock(1e18)})
	s := q.NewSession(nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := s.Put(PutRequest{Pri: 1, TTR: time.Minute, Owned: benchBody}); err != nil {
			b.Fatal(err)
		}
		d, err := s.Reserve(0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Delete(d.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// Many sessions on one tube at once: the tube lock is shared, the index,
// counters and timer shards are not.
func BenchmarkPutReserveDeleteParallel(b *testing.B) {
	q := New(Config{Clock: NewManualClock(1e18)})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		s := q.NewSession(nil)
		defer s.Close()
		for pb.Next() {
			if _, _, err := s.Put(PutRequest{Pri: 1, TTR: time.Minute, Owned: benchBody}); err != nil {
				b.Fatal(err)
			}
			d, err := s.Reserve(0)
			if err == ErrTimedOut {
				continue // another session took it; its delete balances the books
			}
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Delete(d.ID); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A put handed straight to a waiting worker, and the worker's next wait.
func BenchmarkHandOffToWaiter(b *testing.B) {
	q := New(Config{Clock: NewManualClock(1e18)})
	p := q.NewSession(nil)
	w := q.NewSession(func() {})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := w.Reserve(-1); err != ErrWaiting {
			b.Fatal(err)
		}
		if _, _, err := p.Put(PutRequest{TTR: time.Minute, Owned: benchBody}); err != nil {
			b.Fatal(err)
		}
		d, err := w.TakeOutcome()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := w.Delete(d.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// A delayed put and its expiry through the timing wheel.
func BenchmarkDelayedPutExpiry(b *testing.B) {
	clk := NewManualClock(1e18)
	q := New(Config{Clock: clk})
	s := q.NewSession(nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := s.Put(PutRequest{Delay: time.Second, TTR: time.Minute, Owned: benchBody}); err != nil {
			b.Fatal(err)
		}
		clk.Advance(time.Second)
		q.Tick()
		d, err := s.Reserve(0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Delete(d.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// Restoring a million ready jobs, as a journal's replay does at start-up:
// the queue's share of recovery time (issue 12 asks for 1M jobs in 1 s).
func BenchmarkRestore1M(b *testing.B) {
	const n = 1_000_000
	b.ReportAllocs()
	for b.Loop() {
		q := New(Config{Clock: NewManualClock(1e18)})
		for id := uint64(1); id <= n; id++ {
			if err := q.Restore(Record{Kind: RecPut, ID: id, Tube: "default", State: Ready, Pri: 1,
				TTR: time.Minute, Created: 1e18, Body: benchBody}); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// The same hot path in a tube without a policy (one nil check per
// operation) and in one with a policy whose rules run on every requeue
// and put (max_ready far from full, max_reserves never reached): the cost
// of the per-tube hook (hook.go). benchmarks/BENCHMARKS.md has the A/B.
func BenchmarkPutReserveDeletePolicy(b *testing.B) {
	for _, c := range []struct {
		name string
		p    Policy
	}{
		{"none", Policy{}},
		{"max_ready+max_reserves", Policy{MaxReady: 1 << 30, MaxReserves: 1 << 30}},
	} {
		b.Run(c.name, func(b *testing.B) {
			q := New(Config{Clock: NewManualClock(1e18)})
			if !c.p.IsZero() {
				if err := q.SetPolicy("default", c.p); err != nil {
					b.Fatal(err)
				}
			}
			s := q.NewSession(nil)
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := s.Put(PutRequest{Pri: 1, TTR: time.Minute, Owned: benchBody}); err != nil {
					b.Fatal(err)
				}
				d, err := s.Reserve(0)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Delete(d.ID); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
