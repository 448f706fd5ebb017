package wheel

import (
	"math/bits"
	"time"
)

const (
	slotBits = 6
	slots    = 1 << slotBits // per level
	levels   = 8             // 8 levels x 6 bits: a horizon of 2^48 ticks
	// horizonBits is the number of tick bits the levels cover; deadlines
	// further out wait on the overflow list.
	horizonBits = levels * slotBits
)

// Wheel is a hierarchical timing wheel: levels of 64 slots, the lowest one
// tick wide, each level 64 times coarser than the one below.
//
// A timer due at tick e, when the wheel stands at tick cur, sits at the
// level of the highest 6-bit digit in which e and cur differ, in the slot
// named by e's digit at that level. When the wheel reaches the start of a
// slot above level 0 the slot is cascaded: its timers are placed again,
// relative to the new tick, and so move down. Deadlines more than 2^48 ticks
// out wait on an overflow list that is placed again each time the wheel
// crosses a 2^48-tick boundary. Deadlines already reached when scheduled
// wait on a due list that the next Advance empties.
//
// Time is an input: the wheel reads no clock, starts no goroutine and holds
// no time.Timer. A Wheel is not safe for concurrent use: the caller
// serialises every call, including the Timer methods of the timers armed on
// it, under one lock.
type Wheel[T any] struct {
	base int64  // time of tick 0, nanoseconds
	tick uint64 // resolution, nanoseconds, > 0
	now  int64  // current time, never decreases
	cur  uint64 // tick of now
	seq  uint64 // last sequence number handed out
	n    int    // armed timers

	occ      [levels]uint64 // bit i of occ[l]: slot i of level l is non-empty
	slot     [levels][slots]list[T]
	overflow list[T]
	due      list[T]

	fired []*Timer[T] // scratch for Advance, kept to avoid allocations
	steps uint64      // slots fired or cascaded, for tests of the skipping
}

// New returns an empty wheel whose current time is now (nanoseconds) and
// whose resolution is tick (e.g. time.Millisecond). Resolution costs no
// precision: a timer fires on the first Advance whose now reaches its
// deadline, whatever the tick; a coarser tick only means fewer, fuller slots
// and a nearer overflow horizon (2^48 ticks). New panics if tick <= 0.
func New[T any](now int64, tick time.Duration) *Wheel[T] {
	if tick <= 0 {
		panic("wheel: tick must be positive")
	}
	w := &Wheel[T]{base: now, tick: uint64(tick), now: now}
	for l := range w.slot {
		for i := range w.slot[l] {
			w.slot[l][i] = list[T]{min: noMin, w: w, level: uint8(l), idx: uint8(i)}
		}
	}
	w.overflow = list[T]{min: noMin, w: w, level: levelOverflow}
	w.due = list[T]{min: noMin, w: w, level: levelDue}
	return w
}

// Schedule arms t to fire at when (nanoseconds, on the scale of the nows
// passed to Advance). If t is already armed on w it is moved, and counts as
// scheduled now for the ordering of equal deadlines. A when at or before the
// wheel's current time fires on the next Advance. O(1).
//
// The caller holds w's lock. t must not be armed on another wheel: Schedule
// panics rather than corrupt that wheel.
func (w *Wheel[T]) Schedule(t *Timer[T], when int64) {
	if t.list != nil {
		w.unlink(t)
	} else {
		w.n++
	}
	w.seq++
	t.seq = w.seq
	t.when = when
	if when <= w.now {
		t.tick = w.cur
		w.due.push(t)
		return
	}
	t.tick = w.tickOf(when)
	w.place(t)
}

// Cancel disarms t; it is a no-op if t is not armed. O(1). The caller holds
// w's lock; Cancel panics if t is armed on another wheel.
func (w *Wheel[T]) Cancel(t *Timer[T]) {
	if t.list == nil {
		return
	}
	w.unlink(t)
	w.n--
}

// Len returns the number of armed timers. The caller holds w's lock.
func (w *Wheel[T]) Len() int { return w.n }

// tickOf returns the tick holding time at: the number of whole ticks from
// the wheel's origin to at, and 0 for times before the origin.
func (w *Wheel[T]) tickOf(at int64) uint64 {
	if at <= w.base {
		return 0
	}
	return (uint64(at) - uint64(w.base)) / w.tick
}

// place links t, whose tick is at or after cur, into the level and slot its
// tick calls for relative to cur.
func (w *Wheel[T]) place(t *Timer[T]) {
	// Highest differing digit; |slots-1 maps equal ticks to level 0.
	l := (bits.Len64((t.tick^w.cur)|(slots-1)) - 1) / slotBits
	if l >= levels {
		w.overflow.push(t)
		return
	}
	i := (t.tick >> (l * slotBits)) & (slots - 1)
	w.slot[l][i].push(t)
	w.occ[l] |= 1 << i
}

// unlink removes armed t from its list, keeping the occupancy bits true.
func (w *Wheel[T]) unlink(t *Timer[T]) {
	l := t.list
	if l.w != w {
		panic("wheel: timer is armed on another wheel")
	}
	l.remove(t)
	if l.head == nil && l.level < levels {
		w.occ[l.level] &^= 1 << l.idx
	}
}
