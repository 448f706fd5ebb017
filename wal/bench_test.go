package wal

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// writeJobs fills dir with n small jobs (and deletes every tenth, so the
// log also holds dead records) and closes the log.
func writeJobs(tb testing.TB, dir string, n int) {
	l, err := Open(dir, Options{NoSync: true})
	require.NoError(tb, err)
	q := newFakeQueue(l)
	require.NoError(tb, l.replay(q))
	body := []byte("a small job body, 32 bytes long")
	var last uint64
	for id := uint64(1); id <= uint64(n); id++ {
		rec := jobs.Record{Kind: jobs.RecPut, ID: id, Tube: "default", State: jobs.Ready, Pri: uint32(id % 1000),
			TTR: time.Minute, Created: t0 + int64(id), Body: body}
		seq, err := l.Append(rec)
		require.NoError(tb, err)
		if id%10 == 0 {
			seq, err = l.Append(jobs.Record{Kind: jobs.RecDelete, ID: id - 5})
			require.NoError(tb, err)
		}
		last = seq
	}
	for c, _ := l.Committed(); c < last; c, _ = l.Committed() {
		time.Sleep(time.Millisecond) // waiting for the writer, not driving time
	}
	require.NoError(tb, l.Close())
}

// BenchmarkRecovery1M measures Open + Replay of a log of 1,000,000 jobs
// into a real queue (run: go test -run '^$' -bench Recovery1M -benchtime 3x ./wal).
func BenchmarkRecovery1M(b *testing.B) {
	dir := b.TempDir()
	start := time.Now()
	writeJobs(b, dir, 1_000_000)
	b.Logf("wrote 1M jobs in %v (%d bytes of log)", time.Since(start), logBytes(b, dir))
	for _, into := range []string{"queue", "journal-only"} {
		b.Run(into, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				before := cpuTime()
				l, err := Open(dir, Options{})
				require.NoError(b, err)
				var q queue = newFakeQueue(l)
				if into == "queue" {
					q = jobs.New(jobs.Config{Journal: l})
				}
				require.NoError(b, l.replay(q))
				cpu += cpuTime() - before
				b.StopTimer()
				require.NoError(b, l.Close())
				b.StartTimer()
			}
			// CPU time too: on a shared box wall time mostly measures the neighbours.
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/recovery")
		})
	}
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPutCommit measures acknowledged puts per second: each of N
// concurrent clients appends a put and waits until it is committed, under
// each fsync policy, on the test's temporary directory (a real disk).
func BenchmarkPutCommit(b *testing.B) {
	policies := []struct {
		name string
		opts Options
	}{
		{"f0", Options{}},
		{"f50", Options{SyncInterval: DefaultSyncInterval}},
		{"F", Options{NoSync: true}},
	}
	for _, p := range policies {
		for _, clients := range []int{1, 4, 16, 64} {
			b.Run(fmt.Sprintf("%s/clients=%d", p.name, clients), func(b *testing.B) {
				l, err := Open(b.TempDir(), p.opts)
				require.NoError(b, err)
				require.NoError(b, l.replay(newFakeQueue(l)))
				defer l.Close()
				var mu sync.Mutex
				cond := sync.NewCond(&mu)
				l.Subscribe(func() { mu.Lock(); cond.Broadcast(); mu.Unlock() })
				body := make([]byte, 98) // 100 bytes on disk with its CRLF
				var ids atomic.Uint64
				var wg sync.WaitGroup
				per := b.N/clients + 1
				b.ResetTimer()
				for range clients {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range per {
							seq, err := l.Append(jobs.Record{Kind: jobs.RecPut, ID: ids.Add(1), Tube: "default",
								State: jobs.Ready, TTR: time.Second, Body: body})
							if err != nil {
								b.Error(err)
								return
							}
							mu.Lock()
							for c, _ := l.Committed(); c < seq; c, _ = l.Committed() {
								cond.Wait()
							}
							mu.Unlock()
						}
					}()
				}
				wg.Wait()
				b.ReportMetric(float64(per*clients)/b.Elapsed().Seconds(), "puts/s")
			})
		}
	}
}

// openBenchLog opens an empty log without fsync; the caller closes it.
func openBenchLog(b *testing.B) *Log {
	l, err := Open(b.TempDir(), Options{NoSync: true})
	require.NoError(b, err)
	require.NoError(b, l.replay(newFakeQueue(l)))
	return l
}

// BenchmarkAppend measures the cost of Append alone (what the event loop
// pays per change), with the writer draining in the background.
func BenchmarkAppend(b *testing.B) {
	l := openBenchLog(b)
	defer l.Close()
	body := []byte("0123456789012345678901234567890123456789")
	var id atomic.Uint64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, err := l.Append(jobs.Record{Kind: jobs.RecPut, ID: id.Add(1), Tube: "default",
				State: jobs.Ready, TTR: time.Second, Body: body})
			if err != nil && !errors.Is(err, jobs.ErrNoSpace) { // refused: the writer is 64 MiB behind
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkAppendSteady appends a put and its delete, so the live set stays
// small: the steady-state cost per change.
func BenchmarkAppendSteady(b *testing.B) {
	l := openBenchLog(b)
	defer l.Close()
	body := []byte("0123456789012345678901234567890123456789")
	var id atomic.Uint64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := id.Add(1)
			_, err := l.Append(jobs.Record{Kind: jobs.RecPut, ID: n, Tube: "default",
				State: jobs.Ready, TTR: time.Second, Body: body})
			if errors.Is(err, jobs.ErrNoSpace) {
				continue // refused: the writer is 64 MiB behind
			} else if err != nil {
				b.Error(err)
				return
			}
			if _, err := l.Append(jobs.Record{Kind: jobs.RecDelete, ID: n}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkQueuePut measures puts through a real queue on a Log, ids
// included: -F puts that are not waited for (the event loop's cost), and
// -f0/-F puts each waited for by one of 16 clients. lease=off hides the
// Log's id source from the queue (its own counter hands out ids, as before
// the lease), for an A/B in one binary.
func BenchmarkQueuePut(b *testing.B) {
	for _, p := range []struct {
		name string
		opts Options
		wait bool
	}{{"F/nowait", Options{NoSync: true}, false}, {"F/commit", Options{NoSync: true}, true}, {"f0/commit", Options{}, true}} {
		for _, lease := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/lease=%v", p.name, map[bool]string{true: "on", false: "off"}[lease]), func(b *testing.B) {
				benchQueuePut(b, p.opts, p.wait, lease)
			})
		}
	}
}

// journalOnly hides every method of a journal but jobs.Journal's.
type journalOnly struct{ jobs.Journal }

func benchQueuePut(b *testing.B, opts Options, wait, lease bool) {
	l, err := Open(b.TempDir(), opts)
	require.NoError(b, err)
	var j jobs.Journal = l
	if !lease {
		j = journalOnly{l}
	}
	q := jobs.New(jobs.Config{Journal: j})
	require.NoError(b, l.Replay(q))
	defer l.Close()
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	l.Subscribe(func() { mu.Lock(); cond.Broadcast(); mu.Unlock() })
	body := []byte("0123456789012345678901234567890123456789")
	b.SetParallelism(8) // 16 clients on 2 cores
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		s := q.NewSession(func() {})
		for pb.Next() {
			id, seq, err := s.Put(jobs.PutRequest{TTR: time.Second, Body: body})
			if errors.Is(err, jobs.ErrNoSpace) {
				continue // the writer is 64 MiB behind
			} else if err != nil {
				b.Error(err)
				return
			}
			if wait {
				mu.Lock()
				for c, _ := l.Committed(); c < seq; c, _ = l.Committed() {
					cond.Wait()
				}
				mu.Unlock()
			}
			if !wait && id%2 == 0 {
				s.Delete(id) // keep the live set (and memory) small
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "puts/s")
	b.ReportMetric(float64(l.lease.waits.Load()), "lease-waits")
}

// BenchmarkNextID compares the id lease's steady state with the plain
// atomic counter it replaced (the queue's own, without an IDSource).
func BenchmarkNextID(b *testing.B) {
	b.Run("atomic", func(b *testing.B) {
		q := jobs.New(jobs.Config{})
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				q.NextID()
			}
		})
	})
	b.Run("lease", func(b *testing.B) {
		var p fakePersist // records without I/O: what is measured is the path between fsyncs
		ls := newIDLease(1, 0, time.Now, p.persist, func(err error) bool { b.Error(err); return false })
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				ls.nextID()
			}
		})
		ls.close()
	})
}
