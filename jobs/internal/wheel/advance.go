package wheel

import (
	"cmp"
	"math/bits"
	"slices"
)

// Advance moves the wheel to now, disarms every timer whose deadline is at or
// before now, and appends their owners to dst ordered by deadline and, for
// equal deadlines, by the order they were scheduled. It returns dst. A now
// earlier than the wheel's current time is taken as the current time.
//
// The cost is proportional to the slots fired or cascaded plus the timers
// fired (and the log of their number, for the ordering), not to the ticks
// elapsed: empty slots are skipped through the occupancy bitmaps, so a jump
// of hours costs no more than a jump of a tick over the same timers.
// Advance allocates only when the number of timers firing at once exceeds
// every earlier Advance, or dst is too short.
//
// The caller holds w's lock. Advance runs no callbacks: fire the returned
// owners after unlocking.
func (w *Wheel[T]) Advance(now int64, dst []T) []T {
	if now < w.now {
		now = w.now
	}
	w.now = now
	target := w.tickOf(now)
	if w.due.head != nil {
		w.collect(&w.due)
	}
	for {
		l, at, ok := w.nextList()
		if !ok || at > target {
			break
		}
		w.steps++
		w.cur = at
		if l.level != 0 {
			w.cascade(l)
			continue
		}
		// Only the slot of tick target can keep timers (those due later
		// within the tick); past it, everything is beyond now.
		if w.collect(l) {
			break
		}
	}
	w.cur = target
	return w.emit(dst)
}

// Next returns a time no later than the earliest armed deadline, and false
// if nothing is armed. A driver may sleep until then: it may wake early (after
// a Cancel, or to cascade a far deadline), never late. Past deadlines waiting
// for the next Advance make Next return a time at or before the current
// time. O(levels): it reads the occupancy bitmaps and one slot's bound,
// never a list of timers.
//
// The caller holds w's lock.
func (w *Wheel[T]) Next() (int64, bool) {
	if w.n == 0 {
		return 0, false
	}
	at := w.due.min
	if l, _, ok := w.nextList(); ok && l.min < at {
		at = l.min
	}
	return at, true
}

// nextList returns the non-empty list the wheel reaches first, and the tick
// at which it does: a level-0 slot fires at its own tick, a higher slot is
// cascaded at the first tick of its span, the overflow list at the start of
// the next 2^48-tick epoch that can hold one of its deadlines. Every timer on a lower level is due before every timer
// on a higher one, so the first list found holds the earliest deadline.
func (w *Wheel[T]) nextList() (*list[T], uint64, bool) {
	for l := 0; l < levels; l++ {
		shift := uint(l * slotBits)
		digit := (w.cur >> shift) & (slots - 1)
		// Level 0 includes the current slot (timers later within the
		// current tick); higher levels start after the current digit,
		// whose slot was cascaded on the way in.
		from := digit
		if l > 0 {
			from++
		}
		m := w.occ[l] & (^uint64(0) << from)
		if m == 0 {
			continue
		}
		i := uint64(bits.TrailingZeros64(m))
		span := uint64(1)<<(shift+slotBits) - 1
		return &w.slot[l][i], (w.cur &^ span) | i<<shift, true
	}
	if w.overflow.head == nil {
		return nil, 0, false
	}
	// Skip straight to the epoch of the earliest overflow deadline (min is
	// a lower bound), so crossing many empty epochs costs one cascade.
	epoch := w.cur>>horizonBits + 1
	if e := w.tickOf(w.overflow.min) >> horizonBits; e > epoch {
		epoch = e
	}
	if epoch >= 1<<(64-horizonBits) {
		// Unreachable: no tick lies beyond the last epoch.
		return nil, 0, false
	}
	return &w.overflow, epoch << horizonBits, true
}

// collect moves the timers of l that are due at w.now to w.fired, disarmed,
// and reports whether l still holds any (which then all fall due later).
func (w *Wheel[T]) collect(l *list[T]) (kept bool) {
	keptMin := int64(noMin)
	for t := l.head; t != nil; {
		next := t.next
		if t.when <= w.now {
			w.unlink(t)
			w.n--
			w.fired = append(w.fired, t)
		} else if t.when < keptMin {
			keptMin = t.when
		}
		t = next
	}
	l.min = keptMin
	return l.head != nil
}

// cascade empties l and places each of its timers again relative to w.cur,
// which moves them to lower levels (or back to overflow, if still beyond
// the horizon).
func (w *Wheel[T]) cascade(l *list[T]) {
	if l.level < levels {
		w.occ[l.level] &^= 1 << l.idx
	}
	for t := l.take(); t != nil; {
		next := t.next
		w.place(t)
		t = next
	}
}

// emit appends the owners of w.fired to dst in firing order and empties
// w.fired, dropping its pointers so that fired timers are not retained.
func (w *Wheel[T]) emit(dst []T) []T {
	if len(w.fired) == 0 {
		return dst
	}
	slices.SortFunc(w.fired, byDeadline[T])
	for _, t := range w.fired {
		dst = append(dst, t.Owner)
	}
	clear(w.fired)
	w.fired = w.fired[:0]
	return dst
}

// byDeadline orders timers by deadline, then by scheduling order.
func byDeadline[T any](a, b *Timer[T]) int {
	if c := cmp.Compare(a.when, b.when); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}
