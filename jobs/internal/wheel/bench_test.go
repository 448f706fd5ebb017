package wheel_test

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stalkd/stalkd/jobs/internal/wheel"
)

// loaded returns a wheel at start holding n timers spread over the next
// minute, and the timers (owners are indexes).
func loaded(n int) (*wheel.Wheel[int], []wheel.Timer[int]) {
	rng := rand.New(rand.NewPCG(1, 2))
	w := wheel.New[int](start, time.Millisecond)
	ts := timers(n)
	for i := range ts {
		w.Schedule(&ts[i], start+1+rng.Int64N(60*sec))
	}
	return w, ts
}

// BenchmarkScheduleCancel measures arming and disarming one timer (a put
// with a delay that is deleted, a reserve that is released) on a wheel that
// already holds many.
func BenchmarkScheduleCancel(b *testing.B) {
	for _, n := range []int{0, 100_000} {
		b.Run("armed="+strconv.Itoa(n), func(b *testing.B) {
			w, _ := loaded(n)
			ts := timers(1024)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				tm := &ts[i&1023]
				w.Schedule(tm, start+int64(i&0xffff)*ms+1)
				w.Cancel(tm)
			}
		})
	}
}

// BenchmarkRearm measures moving an armed timer (touch, a TTR restarting).
func BenchmarkRearm(b *testing.B) {
	w, ts := loaded(100_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		w.Schedule(&ts[i%len(ts)], start+int64(i&0xffff)*ms+1)
	}
}

// BenchmarkAdvance measures the steady state of a busy wheel: 100k timers
// over the next minute, time moving one millisecond per Advance, every fired
// timer armed again a minute out. ns/op covers the Advance and the
// re-arming of what it fired (about n/60000 timers per op).
func BenchmarkAdvance(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run("armed="+strconv.Itoa(n), func(b *testing.B) {
			w, ts := loaded(n)
			var due []int
			now := start
			fired := 0
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				now += ms
				due = w.Advance(now, due[:0])
				for _, id := range due {
					w.Schedule(&ts[id], now+60*sec-int64(id%1000))
				}
				fired += len(due)
			}
			b.ReportMetric(float64(fired)/float64(b.N), "fired/op")
		})
	}
}

// BenchmarkAdvanceLongJump measures an Advance over an hour of empty time
// on a wheel holding only far deadlines: the cost is the few slots on the
// way, not the 3.6M ticks.
func BenchmarkAdvanceLongJump(b *testing.B) {
	w := wheel.New[int](start, time.Millisecond)
	ts := timers(1000)
	for i := range ts {
		w.Schedule(&ts[i], start+int64(1<<32)*sec+int64(i))
	}
	var due []int
	now := start
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		now += int64(time.Hour)
		due = w.Advance(now, due[:0])
	}
	if len(due) != 0 {
		b.Fatal("nothing should fire")
	}
}

// BenchmarkNext measures the driver's question on a busy wheel.
func BenchmarkNext(b *testing.B) {
	w, _ := loaded(100_000)
	w.Advance(start+30*sec, nil) // leave work on several levels
	b.ReportAllocs()
	b.ResetTimer()
	var sink int64
	for range b.N {
		at, _ := w.Next()
		sink += at
	}
	_ = sink
}
