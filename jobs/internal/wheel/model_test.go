package wheel

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// model is the naive reference: every armed timer with its deadline and
// scheduling number; firing sorts them all.
type model struct {
	now   int64
	seq   uint64
	armed map[int]modelTimer
}

type modelTimer struct {
	when int64
	seq  uint64
}

func (m *model) schedule(id int, when int64) {
	m.seq++
	m.armed[id] = modelTimer{when, m.seq}
}

func (m *model) advance(now int64) []int {
	m.now = max(m.now, now)
	var due []int
	for id, tm := range m.armed {
		if tm.when <= m.now {
			due = append(due, id)
		}
	}
	slices.SortFunc(due, func(a, b int) int {
		ta, tb := m.armed[a], m.armed[b]
		return cmp.Or(cmp.Compare(ta.when, tb.when), cmp.Compare(ta.seq, tb.seq))
	})
	for _, id := range due {
		delete(m.armed, id)
	}
	return due
}

func (m *model) earliest() (int64, bool) {
	best, ok := int64(math.MaxInt64), false
	for _, tm := range m.armed {
		best, ok = min(best, tm.when), true
	}
	return best, ok
}

// addSat is a+d, saturated at the ends of int64.
func addSat(a, d int64) int64 {
	switch {
	case d > 0 && a > math.MaxInt64-d:
		return math.MaxInt64
	case d < 0 && a < math.MinInt64-d:
		return math.MinInt64
	}
	return a + d
}

// mulSat is a*b for a, b >= 0, saturated at MaxInt64/2 (so that a small
// addend cannot overflow it).
func mulSat(a, b int64) int64 {
	if b != 0 && a > math.MaxInt64/2/b {
		return math.MaxInt64 / 2
	}
	return a * b
}

// modelRun drives a wheel and the model through ops random operations and
// fails at the first difference in what fires, Next, Len, Armed or When.
type modelRun struct {
	t    *testing.T
	rng  *rand.Rand
	tick int64
	w    *Wheel[int]
	m    *model
	ts   []Timer[int]
	dst  []int

	fired int // timers fired, to catch a degenerate mix
}

// randWhen draws a deadline relative to now from a mix that exercises every
// path: past, exact, sub-tick, each level, beyond the horizon, and ties.
func (r *modelRun) randWhen() int64 {
	now := r.m.now
	switch r.rng.IntN(10) {
	case 0:
		return addSat(now, -r.rng.Int64N(10*int64(time.Second)))
	case 1:
		return now
	case 2:
		return addSat(now, r.rng.Int64N(r.tick)+1)
	case 3:
		return addSat(now, r.rng.Int64N(100*r.tick))
	case 4, 5:
		ticks := r.rng.Int64N(1 << (slotBits * (1 + r.rng.IntN(levels))))
		return addSat(now, mulSat(ticks, r.tick)+r.rng.Int64N(r.tick))
	case 6:
		return addSat(now, r.rng.Int64N(1<<32)*int64(time.Second))
	case 7:
		if r.rng.IntN(5) == 0 {
			return math.MaxInt64 - r.rng.Int64N(2)
		}
		return addSat(now, r.rng.Int64N(1<<40))
	default: // tie with a random armed timer, if any
		if id := r.rng.IntN(len(r.ts)); r.ts[id].Armed() {
			return r.ts[id].When()
		}
		return addSat(now, r.rng.Int64N(1000*r.tick))
	}
}

// randNow draws the time of the next Advance. Time moves mostly in small
// steps, often to exactly a deadline or just before it; long jumps are rare
// so that a run does not hit the end of int64 time after a few of them.
func (r *modelRun) randNow() int64 {
	now := r.m.now
	earliest, ok := r.m.earliest()
	switch r.rng.IntN(10) {
	case 0:
		return now - r.rng.Int64N(1000) // backwards: ignored
	case 1:
		return now
	case 2:
		return addSat(now, r.rng.Int64N(r.tick))
	case 3, 4, 5:
		// At or just before the earliest deadline, if it is not too far.
		limit := mulSat(int64(1)<<(slotBits*(1+r.rng.IntN(4))), r.tick)
		if r.rng.IntN(300) == 0 {
			limit = math.MaxInt64 // the rare long jump, cascading from far up
		}
		if ok && earliest-now <= limit {
			return max(now, earliest-r.rng.Int64N(2))
		}
	case 6:
		if next, ok := r.w.Next(); ok && next-now < 1<<20*r.tick {
			return next
		}
	case 7:
		return addSat(now, r.rng.Int64N(int64(time.Hour)))
	}
	return addSat(now, r.rng.Int64N(1000*r.tick))
}

func (r *modelRun) step(i int) {
	id := r.rng.IntN(len(r.ts))
	tm := &r.ts[id]
	switch op := r.rng.IntN(10); {
	case op < 4:
		when := r.randWhen()
		r.w.Schedule(tm, when)
		r.m.schedule(id, when)
	case op < 6:
		r.w.Cancel(tm)
		delete(r.m.armed, id)
	default:
		now := r.randNow()
		r.dst = r.w.Advance(now, r.dst[:0])
		want := r.m.advance(now)
		if len(want) == 0 {
			want = []int{}
		}
		require.Equal(r.t, want, append([]int{}, r.dst...), "op %d: Advance(%d) fired", i, now)
		r.fired += len(want)
	}
	r.check(i, id)
}

func (r *modelRun) check(i, id int) {
	t := r.t
	require.Equal(t, len(r.m.armed), r.w.Len(), "op %d: Len", i)
	mt, armed := r.m.armed[id]
	require.Equal(t, armed, r.ts[id].Armed(), "op %d: Armed(%d)", i, id)
	if armed {
		require.Equal(t, mt.when, r.ts[id].When(), "op %d: When(%d)", i, id)
	}
	earliest, any := r.m.earliest()
	next, ok := r.w.Next()
	require.Equal(t, any, ok, "op %d: Next reports something armed", i)
	if ok {
		require.LessOrEqual(t, next, earliest, "op %d: Next later than the earliest deadline", i)
	}
	if i%500 == 0 {
		checkInvariants(t, r.w)
	}
}

func TestAgainstModel(t *testing.T) {
	ops := 40_000
	if testing.Short() {
		ops = 5_000
	}
	configs := []struct {
		seed  uint64
		start int64
		tick  time.Duration
	}{
		{1, 1_700_000_000 * int64(time.Second), time.Millisecond},
		{2, 1_700_000_000 * int64(time.Second), time.Microsecond}, // 2^32 s overflows the levels
		{3, 0, time.Nanosecond},
		{4, -5 * int64(time.Hour), time.Second},
		{5, 123_456_789, 7 * time.Millisecond},
	}
	for _, c := range configs {
		t.Run(fmt.Sprintf("seed=%d/tick=%v", c.seed, c.tick), func(t *testing.T) {
			r := &modelRun{
				t:    t,
				rng:  rand.New(rand.NewPCG(c.seed, 0x5eed)),
				tick: int64(c.tick),
				w:    New[int](c.start, c.tick),
				m:    &model{now: c.start, armed: map[int]modelTimer{}},
				ts:   make([]Timer[int], 500),
			}
			for id := range r.ts {
				r.ts[id].Owner = id
			}
			for i := range ops {
				r.step(i)
			}
			checkInvariants(t, r.w)
			t.Logf("fired %d, slots fired or cascaded %d, time moved %v",
				r.fired, r.w.steps, time.Duration(r.m.now-c.start))
			require.Greater(t, r.fired, ops/10, "the mix should fire many timers")
			require.Greater(t, r.w.steps, uint64(ops/10), "the mix should cascade often")
			// Drain: everything left fires, in order, by the end of time.
			got := r.w.Advance(math.MaxInt64, nil)
			want := r.m.advance(math.MaxInt64)
			require.Equal(t, len(want), len(got))
			if len(want) > 0 {
				require.Equal(t, want, got)
			}
			require.Zero(t, r.w.Len())
			checkInvariants(t, r.w)
		})
	}
}
