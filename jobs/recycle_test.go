package jobs

import (
	"bytes"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// Jobs are recycled as soon as they are deleted, while other goroutines may
// still hold their pointers from the index or a timer. Workers churn
// put/reserve/delete on two tubes (with TTRs running out, releases and
// delays, so timers fire on jobs that are then deleted) while snoopers act
// by id on jobs that come and go: every answer must be about the job asked
// for, and under -race no read of a recycled job may go unsynchronised.
func TestRecycledJobsStayApart(t *testing.T) {
	clk := NewManualClock(t0)
	q := New(Config{Clock: clk})
	var last atomic.Uint64
	var stop atomic.Bool
	var wg sync.WaitGroup
	bodyFor := func(id uint64) []byte { return []byte("job" + strconv.FormatUint(id, 10)) }
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := q.NewSession(nil)
			defer s.Close()
			tube := []byte("t" + strconv.Itoa(w))
			_ = s.Use(tube)
			_, _ = s.Watch(tube)
			for i := 0; !stop.Load(); i++ {
				id := q.NextID()
				delay := time.Duration(0)
				if i%5 == 0 {
					delay = time.Millisecond
				}
				if _, _, err := s.Put(PutRequest{ID: id, TTR: time.Second, Delay: delay, Owned: bodyFor(id)}); err != nil {
					t.Error(err)
					return
				}
				last.Store(id)
				d, err := s.Reserve(0)
				if err != nil {
					continue
				}
				switch i % 7 {
				case 3:
					_, _ = s.Release(d.ID, 1, 0)
				case 5:
					_, _ = s.Bury(d.ID, 1)
				default:
					_, _ = s.Delete(d.ID)
				}
			}
		}()
	}
	wg.Add(2)
	go func() { // the clock: TTRs run out, delays end
		defer wg.Done()
		for !stop.Load() {
			clk.Advance(2 * time.Millisecond)
			q.Tick()
		}
	}()
	go func() {
		defer wg.Done()
		s := q.NewSession(nil)
		defer s.Close()
		for !stop.Load() {
			id := last.Load() - uint64(time.Now().UnixNano()%4)
			if d, err := q.Peek(id); err == nil && !bytes.Equal(d.Body(), bodyFor(id)) {
				t.Errorf("peek %d gave job %d's body %q", id, d.ID, d.Body())
			}
			if js, err := q.StatsJob(id); err == nil && js.ID != id {
				t.Errorf("stats-job %d gave job %d", id, js.ID)
			}
			if d, _, err := s.ReserveJob(id); err == nil {
				assert.Equal(t, bodyFor(id), d.Body())
				_, _ = s.Delete(id)
			}
			_, _ = s.KickJob(id)
			_, _ = s.Delete(id)
		}
	}()
	time.Sleep(300 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
}
