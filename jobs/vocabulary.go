package jobs

import (
	"errors"
	"time"

	"github.com/stalkd/stalkd/jobs/internal/tubename"
	"github.com/stalkd/stalkd/jobs/policy"
)

// This file holds the queue's exported vocabulary: job states, limits, the
// documents a caller hands in or gets back, and the error sentinels.

// State is where a job is in its life.
type State uint8

const (
	Ready State = iota + 1
	Reserved
	Delayed
	Buried
)

// String returns the protocol's name of the state ("ready", "reserved", ...).
func (s State) String() string {
	switch s {
	case Ready:
		return "ready"
	case Reserved:
		return "reserved"
	case Delayed:
		return "delayed"
	case Buried:
		return "buried"
	}
	return "invalid"
}

// MaxCommands is how many command counters a queue keeps for the protocol
// server in front of it (Session.Count, Stats.Cmds). What each counts is the
// server's business: package engine counts by codec.Op.
const MaxCommands = 64

// UrgentPri: ready jobs with a priority below this count as urgent.
const UrgentPri = 1024

// MaxTubeName is the longest tube name, in bytes.
const MaxTubeName = tubename.Max

// JobData is a job's id and body as handed out by reserve and peek. The body
// is shared with the queue and read-only.
type JobData struct {
	ID   uint64
	body []byte
}

// Body returns the job data: the queue's own bytes (capacity = length), to
// read and never modify. A server writes them after a RESERVED or FOUND line
// and follows them with the protocol's "\r\n" itself.
func (d JobData) Body() []byte { return d.body }

// PutRequest describes a new job.
type PutRequest struct {
	// ID is the id to give the job, taken earlier from Queue.NextID (the
	// protocol spends an id as soon as a put line parses). Zero: allocate now.
	ID    uint64
	Pri   uint32
	Delay time.Duration
	// TTR below one second is raised to one second.
	TTR time.Duration
	// Body is the job data. The queue copies it, once, into the job: the
	// caller may reuse the slice as soon as Put returns.
	Body []byte
	// Owned, set instead of Body, is the job data handed over to the queue:
	// the queue keeps the slice as the job's body without copying it (a
	// protocol server's body is then copied nowhere but off the socket).
	// The caller must not modify it afterwards. When Owned is not nil, Body
	// is ignored. Give it a slice of its own allocation: the job keeps the
	// whole array the slice points into alive.
	Owned []byte
}

// Stats holds the queue's half of the server's stats document.
type Stats struct {
	Urgent, Ready, Reserved, Delayed, Buried int64
	Cmds                                     [MaxCommands]uint64 // by Session.Count index
	JobTimeouts, TotalJobs                   uint64
	Tubes                                    int
	Connections, Producers, Workers, Waiting int64
	TotalConnections                         uint64
	Draining                                 bool
}

// TubeStats is the stats-tube document of one tube.
type TubeStats struct {
	Name                                     string
	Urgent, Ready, Reserved, Delayed, Buried int64
	TotalJobs                                uint64
	Using, Watching, Waiting                 int64
	Deletes, Pauses                          uint64
	// Pause is the duration of the current pause, PauseLeft what is left of it.
	Pause, PauseLeft time.Duration
	// PolicyCounts are the counters of the tube's policy (zero without
	// one): they belong to the policy, not the tube, and outlive it (see
	// Queue.PolicyStats). Not part of the protocol's stats-tube: clients
	// parse that.
	PolicyCounts
}

// JobStats is the stats-job document of one job.
type JobStats struct {
	ID    uint64
	Tube  string
	State State
	Pri   uint32
	// Age is the time since put; TimeLeft the time until a reserved job's
	// TTR or a delayed job's delay ends (zero for other states; may be
	// slightly negative).
	Age, Delay, TTR, TimeLeft                   time.Duration
	File                                        int
	Reserves, Timeouts, Releases, Buries, Kicks uint32
}

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
	// ErrReservedJob: MoveJob of a job a worker holds reserved (it is the
	// worker's until it deletes, releases or buries it). Operators' calls
	// only: never a protocol reply.
	ErrReservedJob = errors.New("jobs: the job is reserved by a worker")
	// ErrSameTube: a Redrive whose target is the tube it empties.
	// Operators' calls only.
	ErrSameTube = errors.New("jobs: the target is the tube itself")
)

// ErrQueueFull: a put into a tube whose policy's max_ready is reached
// (ready plus delayed jobs) with overflow reject, or whose dead-letter
// tube is full too; nothing is stored. The protocol answers
// OUT_OF_MEMORY, its "try again later": a policy never puts a new word on
// the wire.
var ErrQueueFull = errors.New("jobs: queue full")

// ErrPutBuried: a put into a tube whose policy's max_ready is reached with
// overflow bury. It is not a failure: the job IS stored, buried, and the
// id and sequence number returned with it are valid. The protocol answers
// BURIED <id>, beanstalkd's own put reply for a job it stored but could
// not queue.
var ErrPutBuried = errors.New("jobs: stored buried: the tube is at its max_ready")

// The tube policy's value types and limits live in package policy (the
// rules of a well-formed policy, with no queue in them); these aliases keep
// them part of this package's vocabulary, so callers need not import it.
type (
	// Policy is what the queue enforces on a tube name: policy.Policy.
	Policy = policy.Policy
	// Schedule is one recurring put of a Policy: policy.Schedule.
	Schedule = policy.Schedule
	// PolicyError is a policy the queue refuses, naming the offending
	// field: policy.Error.
	PolicyError = policy.Error
	// Overflow is what a put over a policy's MaxReady gets:
	// policy.Overflow.
	Overflow = policy.Overflow
)

// The overflow modes of a Policy (see policy.Overflow).
const (
	OverflowReject     = policy.OverflowReject
	OverflowBury       = policy.OverflowBury
	OverflowDeadLetter = policy.OverflowDeadLetter
)

// CheckPolicies checks a whole set of policies, by tube name, as
// policy.CheckSet does: each policy, then the rules across tubes (no
// dead_letter naming its own tube, no dead-letter cycle). Pure.
func CheckPolicies(set map[string]Policy) error { return policy.CheckSet(set) }

// The limits a Policy may ask for (see package policy).
const (
	MaxReserveRate  = policy.MaxReserveRate
	MaxScheduleBody = policy.MaxScheduleBody
	MaxSchedules    = policy.MaxSchedules
)

// A schedule's job priority and TTR (seconds) when its JSON leaves them
// out (see Schedule): stalkctl put's defaults.
const (
	DefaultSchedulePriority = policy.DefaultPriority
	DefaultScheduleTTR      = policy.DefaultTTR
)

// MergePolicyPatch returns p changed by patch, a JSON merge patch (RFC
// 7386: a key sets a field, null removes it), validated; a refusal is a
// *PolicyError naming the field. Pure, safe for concurrent use: see
// policy.MergePatch and Queue.UpdatePolicySeq.
func MergePolicyPatch(p Policy, patch []byte) (Policy, error) { return policy.MergePatch(p, patch) }
