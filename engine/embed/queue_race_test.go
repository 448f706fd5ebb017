package embed

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Many goroutines put, reserve with contexts that end at random moments,
// release some jobs and delete the rest: every job is deleted exactly once,
// none is lost, and no waiter is left behind.
func TestEmbedConcurrentNoLossNoDuplicate(t *testing.T) {
	q := openTest(t, Options{})
	const producers, workers, perProducer = 8, 8, 300
	const total = producers * perProducer
	tubes := []string{"a", "b", "c"}

	var mu sync.Mutex
	seen := make(map[uint64]int, total)
	var deleted sync.WaitGroup
	deleted.Add(total)

	ctx, stop := context.WithCancel(bg())
	defer stop()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for ctx.Err() == nil {
				rctx, cancel := context.WithCancel(ctx)
				if rng.IntN(3) == 0 { // end this reserve at a random moment
					go func() { runtime.Gosched(); cancel() }()
				}
				job, err := q.Reserve(rctx, tubes...)
				cancel()
				if err != nil {
					continue
				}
				if rng.IntN(4) == 0 {
					assert.NoError(t, job.Release(bg(), 0, 0))
					continue
				}
				n := binary.LittleEndian.Uint64(job.Body)
				mu.Lock()
				seen[n]++
				mu.Unlock()
				assert.NoError(t, job.Delete(bg()))
				deleted.Done()
			}
		}()
	}
	for p := range producers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var body [8]byte
			for i := range perProducer {
				binary.LittleEndian.PutUint64(body[:], uint64(p*perProducer+i))
				_, err := q.Put(bg(), tubes[i%len(tubes)], body[:], PutOptions{Pri: uint32(i % 5)})
				assert.NoError(t, err)
			}
		}()
	}
	done := make(chan struct{})
	go func() { deleted.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("only %d of %d jobs deleted; stats %+v", len(seen), total, q.Stats())
	}
	stop()
	wg.Wait()

	require.Len(t, seen, total)
	for n, c := range seen {
		require.Equal(t, 1, c, "job %d deleted %d times", n, c)
	}
	st := q.Stats()
	assert.Zero(t, st.Ready+st.Reserved+st.Delayed+st.Buried, "jobs left: %+v", st)
	assert.Zero(t, st.Waiting, "waiters left behind")
}

// The in-memory path allocates nothing per operation beyond the job: the
// body copy and the queue's own job record.
func TestEmbedSteadyStateAllocations(t *testing.T) {
	if enginetest.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	q := openTest(t, Options{})
	body := []byte("a preallocated body of a modest size")
	ctx := bg()
	cycle := func() {
		id, err := q.Put(ctx, "allocs", body, PutOptions{Pri: 1})
		if err != nil {
			panic(err)
		}
		job, err := q.Reserve(ctx, "allocs")
		if err != nil || job.ID != id {
			panic("reserve")
		}
		if err := job.Delete(ctx); err != nil {
			panic(err)
		}
	}
	for range 10_000 {
		cycle()
	}
	allocs := testing.AllocsPerRun(10_000, cycle)
	t.Logf("allocations per put+reserve+delete: %.0f", allocs)
	assert.LessOrEqual(t, allocs, 2.0, "the body copy and the queue's job, nothing else")
}
