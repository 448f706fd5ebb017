// Package wheel is the hierarchical timing wheel behind every timer of the
// queue core: job delays, TTRs, tube pauses and reserve timeouts.
//
// # Usage
//
// Embed a Timer by value in whatever owns the deadline, set its Owner once,
// and arm it on a Wheel. Time is an input: Advance takes the current time
// (int64 nanoseconds, from the queue's Clock) and returns the owners whose
// deadlines it reached, in deadline order, ties broken by scheduling order.
//
//	type job struct {
//		id    uint64
//		delay wheel.Timer[*job]
//	}
//
//	w := wheel.New[*job](clock.Now(), time.Millisecond)
//	j := &job{id: 1}
//	j.delay.Owner = j
//	w.Schedule(&j.delay, clock.Now()+int64(5*time.Second))
//	...
//	due = w.Advance(clock.Now(), due[:0]) // under the lock
//	// unlock, then act on due
//
// A driver that sleeps between Advances asks Next for how long: it returns a
// time no later than the earliest deadline (possibly earlier; never later).
//
// # Guarantees
//
//   - A timer never fires before its deadline, and fires on the first
//     Advance whose now is at or after it, whatever the tick: the tick only
//     sets how timers are bucketed, not how precisely they fire.
//   - A deadline at or before the wheel's current time fires on the next
//     Advance.
//   - Schedule, Cancel and re-arming are O(1). Advance costs the slots it
//     fires or cascades plus the timers it fires; empty ticks are skipped
//     through per-level occupancy bitmaps, so a jump of hours is as cheap as
//     a jump of one tick. Next reads at most one bitmap per level.
//   - Deadlines may lie arbitrarily far out (a beanstalk delay reaches 2^32
//     seconds): beyond the top level's horizon of 2^48 ticks they wait on an
//     overflow list and cascade down as the wheel approaches them.
//   - Steady state allocates nothing: timers are intrusive, and Advance
//     reuses its scratch space and appends to the caller's slice.
//
// # Concurrency and ownership
//
// Nothing here is safe for concurrent use and nothing runs on its own: no
// goroutines, no time.Timer, no clock reads. The caller serialises all calls
// on a wheel, Timer.Armed and Timer.When included, under one lock (the queue
// keeps a few sharded wheels, each under its own mutex). Advance runs no
// callbacks; fire what it returns after unlocking.
//
// A Timer belongs to its owner; while armed, the wheel links to it, so it
// must not be copied or freed until cancelled or fired. A timer armed on one
// wheel must be cancelled there before it is scheduled on another; Schedule
// and Cancel panic on a timer armed on a different wheel.
package wheel
