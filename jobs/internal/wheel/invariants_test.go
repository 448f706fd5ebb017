package wheel

import (
	"fmt"
	"math/bits"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkInvariants walks every list of w and fails unless the structure is
// exactly what Schedule, Cancel and Advance promise each other.
func checkInvariants[T any](t testing.TB, w *Wheel[T]) {
	t.Helper()
	count := 0
	walk := func(l *list[T], where string) {
		var prev *Timer[T]
		for tm := l.head; tm != nil; tm = tm.next {
			count++
			require.Same(t, l, tm.list, "%s: timer points at another list", where)
			require.Same(t, prev, tm.prev, "%s: broken back link", where)
			require.LessOrEqual(t, l.min, tm.when, "%s: min above a deadline", where)
			prev = tm
		}
		if l.head == nil {
			require.Equal(t, int64(noMin), l.min, "%s: empty list with a min", where)
		}
	}
	for lv := range levels {
		for i := range slots {
			l := &w.slot[lv][i]
			where := fmt.Sprintf("level %d slot %d", lv, i)
			walk(l, where)
			require.Equal(t, l.head != nil, w.occ[lv]&(1<<i) != 0, "%s: occupancy bit", where)
			for tm := l.head; tm != nil; tm = tm.next {
				require.Greater(t, tm.when, w.now, "%s: overdue timer left in a slot", where)
				require.GreaterOrEqual(t, tm.tick, w.cur, "%s: tick behind the wheel", where)
				got := (bits.Len64((tm.tick^w.cur)|(slots-1)) - 1) / slotBits
				require.Equal(t, lv, got, "%s: timer on the wrong level", where)
				require.Equal(t, uint64(i), (tm.tick>>(lv*slotBits))&(slots-1), "%s: wrong slot", where)
			}
		}
	}
	walk(&w.overflow, "overflow")
	for tm := w.overflow.head; tm != nil; tm = tm.next {
		require.GreaterOrEqual(t, bits.Len64(tm.tick^w.cur), horizonBits+1, "overflow timer within the horizon")
	}
	walk(&w.due, "due")
	require.Equal(t, w.n, count, "Len disagrees with the lists")
	require.Equal(t, w.tickOf(w.now), w.cur, "cur is not the tick of now")
	require.Empty(t, w.fired, "scratch not emptied")
}

func TestAdvanceCostIsSlotsNotTicks(t *testing.T) {
	w := New[int](0, time.Millisecond)
	w.Advance(int64(24*time.Hour), nil) // 86.4M ticks, nothing armed
	assert.Zero(t, w.steps)

	var tm [3]Timer[int]
	w.Schedule(&tm[0], int64(24*time.Hour+10*time.Hour))
	w.Schedule(&tm[1], int64(24*time.Hour+10*time.Hour)+1)
	w.Schedule(&tm[2], int64(400*24*time.Hour))
	got := w.Advance(int64(24*time.Hour+11*time.Hour), nil)
	assert.Equal(t, []int{0, 0}, got)
	// One cascade per level crossed, then one fire: at most levels steps,
	// however many ticks (36M) lie between.
	assert.LessOrEqual(t, w.steps, uint64(levels))
	checkInvariants(t, w)

	w.steps = 0
	got = w.Advance(int64(500*24*time.Hour), got[:0])
	assert.Len(t, got, 1)
	assert.LessOrEqual(t, w.steps, uint64(levels))
	checkInvariants(t, w)
}

func TestOverflowCrossesEpochsInOneCascade(t *testing.T) {
	w := New[int](0, time.Nanosecond) // horizon 2^48 ns, about 78 hours
	var tm Timer[int]
	w.Schedule(&tm, 1<<62) // 2^14 epochs away
	checkInvariants(t, w)
	require.Same(t, &w.overflow, tm.list)
	got := w.Advance(1<<62, nil)
	assert.Len(t, got, 1)
	assert.LessOrEqual(t, w.steps, uint64(levels+1))
}

func TestInvariantsHoldThroughCascades(t *testing.T) {
	w := New[int](1000, time.Microsecond)
	ts := make([]Timer[int], 64)
	for i := range ts {
		ts[i].Owner = i
		w.Schedule(&ts[i], 1000+int64(1)<<(i%63)+int64(i))
	}
	checkInvariants(t, w)
	fired := 0
	for now := int64(1000); w.Len() > 0; {
		next, ok := w.Next()
		require.True(t, ok)
		require.Greater(t, next, int64(0))
		now = max(now, next)
		fired += len(w.Advance(now, nil))
		checkInvariants(t, w)
	}
	assert.Equal(t, len(ts), fired)
}
