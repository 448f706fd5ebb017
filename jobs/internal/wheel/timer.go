package wheel

import "math"

// Timer is one deadline, embedded by value in its owner (a job, a session, a
// tube). The zero value is an unarmed timer.
//
// Owner is set by the owner once, before the timer is first scheduled; the
// wheel hands a copy of it back from Advance when the timer fires. The other
// fields belong to the wheel the timer is armed on: a Timer is read and
// written only under that wheel's lock, and must not be copied or moved
// while armed (the wheel holds pointers to it).
type Timer[T any] struct {
	// Owner identifies what fires; the wheel only copies it out of Advance.
	Owner T

	when int64     // deadline, nanoseconds
	seq  uint64    // scheduling order, breaks ties between equal deadlines
	tick uint64    // expiry tick, relative to the wheel's origin
	next *Timer[T] // links on list; nil when unarmed
	prev *Timer[T]
	list *list[T] // the slot (or due/overflow list) holding the timer; nil when unarmed
}

// Armed reports whether t is scheduled on a wheel. Call it under the lock of
// the wheel t was last scheduled on.
func (t *Timer[T]) Armed() bool { return t.list != nil }

// When returns the deadline t was last armed for. It is meaningful while t is
// armed; after t fires or is cancelled it still returns the old deadline.
// Call it under the lock of the wheel t was last scheduled on.
func (t *Timer[T]) When() int64 { return t.when }

// Kinds of list, stored in list.level: 0..levels-1 are wheel slots, the two
// others are the wheel's side lists.
const (
	levelOverflow = levels     // deadlines beyond the top level's horizon
	levelDue      = levels + 1 // deadlines already reached when scheduled
)

const noMin = math.MaxInt64 // list.min of an empty list

// list is an intrusive doubly-linked list of timers: one wheel slot, or one
// of the wheel's side lists. Order on the list carries no meaning; Advance
// sorts what fires.
type list[T any] struct {
	head *Timer[T]
	// min is a lower bound on the deadline of every timer on the list: exact
	// after push and after a filtering pass, possibly stale-low after a
	// removal (an early wake-up is allowed, a late one is not). noMin when
	// the list is empty.
	min   int64
	w     *Wheel[T] // owner, to catch a timer cancelled on the wrong wheel
	level uint8     // 0..levels-1, levelOverflow or levelDue
	idx   uint8     // slot index within its level
}

// push links t at the head of l.
func (l *list[T]) push(t *Timer[T]) {
	t.prev = nil
	t.next = l.head
	if l.head != nil {
		l.head.prev = t
	}
	l.head = t
	t.list = l
	if t.when < l.min {
		l.min = t.when
	}
}

// remove unlinks t from l and leaves t unarmed.
func (l *list[T]) remove(t *Timer[T]) {
	if t.prev != nil {
		t.prev.next = t.next
	} else {
		l.head = t.next
	}
	if t.next != nil {
		t.next.prev = t.prev
	}
	t.next, t.prev, t.list = nil, nil, nil
	if l.head == nil {
		l.min = noMin
	}
}

// take empties l and returns its former chain; the timers still point at l
// until the caller relinks or disarms each one.
func (l *list[T]) take() *Timer[T] {
	h := l.head
	l.head = nil
	l.min = noMin
	return h
}
