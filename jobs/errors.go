package jobs

import "errors"

// The queue's errors. Each is a sentinel: compare with errors.Is. The network
// edge (package engine) maps each one to exactly one protocol word in a single
// table; nothing else in the queue knows the wire.
var (
	// ErrNotFound: no such job, or not in a state the operation accepts, or
	// reserved by another session; also an unknown tube for StatsTube and PauseTube.
	ErrNotFound = errors.New("jobs: not found")
	// ErrNotIgnored: Ignore of the only watched tube.
	ErrNotIgnored = errors.New("jobs: cannot ignore the last watched tube")
	// ErrBadTubeName: a tube name outside the protocol's grammar.
	ErrBadTubeName = errors.New("jobs: bad tube name")
	// ErrTimedOut: a reserve with a timeout expired without a job.
	ErrTimedOut = errors.New("jobs: reserve timed out")
	// ErrDeadlineSoon: the session holds a reserved job whose TTR ends within
	// a second, and no job was ready for it.
	ErrDeadlineSoon = errors.New("jobs: deadline soon")
	// ErrDraining: the queue refuses new jobs (drain mode).
	ErrDraining = errors.New("jobs: draining")
	// ErrWaiting: Reserve found no job and the session now waits; the outcome
	// arrives later through the session's wake function and TakeOutcome.
	ErrWaiting = errors.New("jobs: waiting for a job")
	// ErrNoSpace: the journal has no room for the record (the disk is full);
	// the protocol answers OUT_OF_MEMORY, as the reference does.
	ErrNoSpace = errors.New("jobs: no room in the journal")
	// ErrBadState: a job state that an operation does not take (ListJobs).
	ErrBadState = errors.New("jobs: bad job state")
	// ErrJournal: the journal failed; the change was not made durable.
	ErrJournal = errors.New("jobs: journal failure")
)

// ErrQueueFull: a put into a tube whose policy's max_ready is reached
// (ready plus delayed jobs); nothing is stored. The protocol answers
// QUEUE_FULL, a word only a tube with such a policy ever sends.
var ErrQueueFull = errors.New("jobs: queue full")
