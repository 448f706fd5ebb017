package jobs

// This file holds what a dead-lettered job remembers: where it came from,
// why it moved and when (DeadLetter), and the declared set of reasons
// (DeadReason, one row of deadReasons each). A new reason (issue 31's
// expired) is a constant and a row here, a format number in each log
// (wal/internal/fields.ReasonCode), and nothing else: the admin API,
// stalkctl and the dashboard show whatever Name says.

// DeadReason is why a job was moved to a dead-letter tube. The zero value
// is no reason (a job that was never dead-lettered). A plain value: its
// methods read only the package's fixed table and are safe for concurrent
// use.
type DeadReason uint8

const (
	// DeadReleased: the job had used up its tube's max_reserves and its
	// worker released it.
	DeadReleased DeadReason = iota + 1
	// DeadTimedOut: the job had used up its tube's max_reserves and its
	// time-to-run ran out.
	DeadTimedOut
	// DeadOverflow: a put found the tube at its max_ready and the policy's
	// overflow mode sent the job to the dead-letter tube instead.
	DeadOverflow
)

// deadReasons is the declared table of reasons, indexed by DeadReason:
// the name the admin API, stalkctl and the dashboard show, and a sentence
// for people.
var deadReasons = [...]struct{ name, text string }{
	DeadReleased: {"max_reserves_released", "used up max_reserves and was released"},
	DeadTimedOut: {"max_reserves_timed_out", "used up max_reserves and its time-to-run ran out"},
	DeadOverflow: {"overflow", "put while the tube was at max_ready (overflow: dead_letter)"},
}

// DeadReasons returns every declared reason, in numeric order (for tests
// and for the formats' tables, which must know each one), in a new slice
// the caller owns. Safe for concurrent use.
func DeadReasons() []DeadReason {
	out := make([]DeadReason, 0, len(deadReasons))
	for r := range deadReasons {
		if deadReasons[r].name != "" {
			out = append(out, DeadReason(r))
		}
	}
	return out
}

// Valid reports whether r is a declared reason.
func (r DeadReason) Valid() bool { return int(r) < len(deadReasons) && deadReasons[r].name != "" }

// String returns the reason's name ("max_reserves_released", ...), or
// "unknown" for an undeclared value.
func (r DeadReason) String() string {
	if !r.Valid() {
		return "unknown"
	}
	return deadReasons[r].name
}

// Text returns a sentence saying what the reason means.
func (r DeadReason) Text() string {
	if !r.Valid() {
		return "unknown reason"
	}
	return deadReasons[r].text
}

// ParseDeadReason returns the reason called name; ok is false for a name
// no reason has.
func ParseDeadReason(name string) (r DeadReason, ok bool) {
	for i := range deadReasons {
		if deadReasons[i].name != "" && deadReasons[i].name == name {
			return DeadReason(i), true
		}
	}
	return 0, false
}

// DeadLetter is what a job that moved into a dead-letter tube remembers:
// the tube it left, why, and when. It is kept only by dead-lettered jobs
// (a pointer in the job's rarely used extension, nil for every other job),
// is immutable once made, and is shared read-only between the queue, its
// journal records and views: never modify one.
type DeadLetter struct {
	// Origin is the tube the job left (a redrive sends it back there).
	Origin string
	// Reason is why it moved.
	Reason DeadReason
	// At is when it moved (Clock time, ns).
	At int64
}

// markDead records on j, which is entering a dead-letter tube from tube
// from, why and when it moved. Call it before j's put record is built (the
// record carries it), with j not yet published or its tube's lock held.
//
// It is the one way to stamp a job: retire (max_reserves) uses it, and so
// does a put that a full tube's overflow mode sends to the dead-letter tube
// (reason DeadOverflow): build the job in the dead-letter tube, markDead
// it from the tube the producer used, then log and place it as Put does.
func (j *job) markDead(from *tube, reason DeadReason, now int64) {
	j.x().dead = &DeadLetter{Origin: from.name, Reason: reason, At: now}
}

// JobDeadLetter returns what job id remembers of its move to a dead-letter
// tube; ok is false when it never moved to one (or moved on since, by a
// redrive or a move). ErrNotFound: no such job. A copy; safe for
// concurrent use.
func (q *Queue) JobDeadLetter(id uint64) (dl DeadLetter, ok bool, err error) {
	t, j := q.lockJob(id)
	if j == nil {
		return dl, false, ErrNotFound
	}
	defer t.mu.Unlock()
	if j.state == 0 {
		return dl, false, ErrNotFound
	}
	if d := j.r().dead; d != nil {
		return *d, true, nil
	}
	return dl, false, nil
}
