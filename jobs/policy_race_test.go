package jobs

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestConcurrentPolicies runs producers and workers on the real clock while
// another goroutine keeps changing the tubes' policies - dead letters that
// chase each other between tubes, burials, reserve rates, length caps, a
// schedule - to catch lock-order mistakes and races (run with -race): every
// stored job must be deleted exactly once and never held twice at once, and
// the queue must end empty.
func TestConcurrentPolicies(t *testing.T) {
	const producers, workers, perProducer = 20, 20, 40
	const total = producers * perProducer
	q := New(Config{})
	runQueue(t, q)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	l := newLedger(total + 1000) // schedules may add a few
	l.left.Store(0)
	tubes := []string{"w1", "w2", "dead"}
	policies := []Policy{
		{MaxReserves: 2, DeadLetter: "dead"},
		{MaxReserves: 1},
		{MaxReserves: 2, DeadLetter: "w2", ReserveRate: 2000},
		{MaxReady: 30},
		{ReserveRate: 5000, MaxReady: 100},
		{},
	}
	var wg, prod sync.WaitGroup
	stop := make(chan struct{})
	var stopOnce sync.Once
	wg.Add(1)
	go func() { // the operator
		defer wg.Done()
		rng := rand.New(rand.NewPCG(1, 2))
		for {
			select {
			case <-stop:
				return
			default:
			}
			tube := tubes[rng.IntN(2)]
			p := policies[rng.IntN(len(policies))]
			if p.DeadLetter == tube {
				p.DeadLetter = "w1"
			}
			if rng.IntN(10) == 0 {
				p.Schedule = []Schedule{{Cron: "@every 1s", Body: "s"}}
			}
			require.NoError(t, q.SetPolicy(tube, p))
			time.Sleep(time.Millisecond)
		}
	}()
	var stored sync.Map
	prod.Add(producers)
	for i := range producers {
		go func() {
			defer prod.Done()
			s := q.NewSession(nil)
			defer s.Close()
			require.NoError(t, s.Use([]byte(tubes[i%2])))
			for range perProducer {
				id, _, err := s.Put(PutRequest{Pri: uint32(i), TTR: time.Second, Body: []byte("x")})
				if errors.Is(err, ErrQueueFull) {
					continue
				}
				require.NoError(t, err)
				stored.Store(id, true)
				l.left.Add(1)
			}
		}()
	}
	wg.Add(workers)
	for i := range workers {
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 9))
			wake := make(chan struct{}, 1)
			s := q.NewSession(func() {
				select {
				case wake <- struct{}{}:
				default:
				}
			})
			defer s.Close()
			for _, name := range tubes {
				_, err := s.Watch([]byte(name))
				require.NoError(t, err)
			}
			for ctx.Err() == nil {
				d, err := s.Reserve(20 * time.Millisecond)
				if err == ErrWaiting {
					<-wake
					d, err = s.TakeOutcome()
				}
				if err != nil {
					select {
					case <-stop:
						return
					default:
					}
					for _, name := range tubes { // burials come back
						k := q.NewSession(nil)
						_ = k.Use([]byte(name))
						_, _, _ = k.Kick(100)
						k.Close()
					}
					continue
				}
				if string(d.Body()) == "s" { // a scheduled job: not in the ledger
					_, _ = s.Delete(d.ID)
					continue
				}
				if !l.got(t, d.ID) {
					return
				}
				if rng.IntN(4) == 0 {
					l.giveBack(d.ID)
					_, err = s.Delete(d.ID)
					require.NoError(t, err)
					l.deleted[d.ID].Add(1)
					if l.left.Add(-1) == 0 {
						prod.Wait()
						if l.left.Load() == 0 {
							stopOnce.Do(func() { close(stop) })
						}
					}
					continue
				}
				l.giveBack(d.ID)
				_, err = s.Release(d.ID, 1, 0)
				require.NoError(t, err)
			}
		}()
	}
	wg.Wait()
	require.NoError(t, ctx.Err(), "the jobs were not all deleted in time")
	stored.Range(func(k, _ any) bool {
		require.Equal(t, int32(1), l.deleted[k.(uint64)].Load(), "job %d", k)
		return true
	})
	for _, name := range tubes {
		_, err := q.RemovePolicy(name)
		require.NoError(t, err)
	}
	st := q.Stats()
	require.Zero(t, st.Reserved+st.Buried+st.Delayed, "%+v", st)
}
