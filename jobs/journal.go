package jobs

import "time"

// RecordKind says what a journal record describes.
type RecordKind uint8

const (
	// RecPut carries a whole job: every field of Record, body included. It is
	// written for a new job, and again when compaction moves a live job forward.
	RecPut RecordKind = iota + 1
	// RecUpdate carries a state change of a job written earlier: every field
	// but Tube and Body.
	RecUpdate
	// RecDelete says the job is gone. Only ID is meaningful.
	RecDelete
	// RecClear says every job in IDs is gone (a clear-tube); only IDs is
	// meaningful. One record stands for a whole tube, however many jobs.
	RecClear
)

// RecPolicy sets the policy of tube Tube to Policy (a PolicyRecord: the
// policy and its schedules' progress), or removes the tube's policy when
// Policy is nil. No other field is meaningful. A journal
// keeps the latest one per tube; compaction writes them again with
// Queue.RewritePolicies.
const RecPolicy RecordKind = 0x50

// RecPolicySet replaces every tube policy at once: afterwards the tubes in
// Policy.Tubes have exactly those policies (with their schedules' progress)
// and every other tube has none. It is one record, so a journal holds all
// of the change or none of it (Queue.ReplacePoliciesSeq: a policy file
// applied at start or reloaded on SIGHUP). No other field is meaningful.
const RecPolicySet RecordKind = 0x51

// TubePolicyRecord is one tube's policy in a RecPolicySet's
// PolicyRecord.Tubes.
type TubePolicyRecord struct {
	Tube string
	PolicyRecord
}

// Record is one durable change. Records of one job reach the journal in the
// order the changes were made (they are appended under the job's tube lock).
type Record struct {
	Kind  RecordKind
	State State // Ready, Delayed or Buried; a reserved job is logged as Ready
	Pri   uint32
	ID    uint64
	Tube  string // RecPut only
	Delay time.Duration
	TTR   time.Duration
	// Created is when the job was put (Clock time, ns). Deadline is when a
	// delayed job becomes ready (Clock time, ns); zero for other states.
	Created, Deadline                           int64
	Reserves, Timeouts, Releases, Buries, Kicks uint32
	// Sched, in a RecPut, is nonzero for a job a policy's schedule put:
	// schedule number Sched-1 of tube Tube fired at SchedAt (Clock ns).
	// The mark travels in the put itself, so that a restart or failover
	// neither loses nor repeats that time. (Sched sits where the counters
	// leave padding: the Record, kept per job by a cluster's state, grows
	// only by SchedAt and the Policy pointer.)
	Sched uint32
	// Body is the job data (RecPut only), without framing. It is shared
	// with the queue and never modified: the journal may keep a reference
	// until it has written it, but must not change it.
	Body []byte
	// IDs lists the jobs a RecClear removes (RecClear only). Like Body it is
	// kept, not copied, until written, and must not be modified afterwards.
	IDs []uint64
	// SchedAt is the time a scheduled put stands for (see Sched).
	SchedAt int64
	// Policy is what a RecPolicy sets (nil: the tube's policy is removed),
	// or in a RecPolicySet the whole set (its Tubes). Shared and read-only,
	// like Body.
	Policy *PolicyRecord
	// Dead, in a RecPut, is what a dead-lettered job remembers of its move
	// (nil for every other job; an update never carries it: the job keeps
	// what its latest put said). Shared and read-only, like Body. (Kind and
	// State sit together so that the Record, kept per job by a cluster's
	// state and a replay's image, stays 160 bytes with it.)
	Dead *DeadLetter
}

// PolicyRecord is a policy as the journal holds it: the Policy and the
// last fire time of each of its schedules (Clock ns, one per schedule; a
// time before the first fire is when the policy was set).
type PolicyRecord struct {
	Policy
	Fired []int64
	// Tubes, in a RecPolicySet only, is every tube's policy in tube name
	// order (Policy and Fired are then unused). It shares the Record's
	// Policy pointer so that a Record, kept per job by a cluster's state,
	// stays 160 bytes.
	Tubes []TubePolicyRecord
}

// IDSource is implemented by a journal that hands out job ids itself, so
// that ids stay unique across restarts whatever part of the journal is
// lost (package wal leases them in blocks recorded durably ahead of use).
// New picks it up from Config.Journal by a type assertion; Queue.NextID and
// Queue.EnsureNextID then go to it.
//
// Concurrency: both are called from many goroutines at once, with no lock
// of the queue held. NextID must not do I/O in the common case (it may
// block, rarely, while the journal records a new block of ids).
type IDSource interface {
	// NextID spends and returns an id: never one returned before, nor one
	// below the highest EnsureNextID asked for.
	NextID() uint64
	// EnsureNextID makes sure no id below next is ever handed out.
	EnsureNextID(next uint64)
}

// Journal is the durability seam: package wal implements it; a queue without
// one keeps everything in memory.
//
// Concurrency: the queue calls Append while it holds the lock of the job's
// tube, from many goroutines at once, so Append must be safe for concurrent
// use and must never wait for I/O: it buffers the record and returns. A
// journal must not call back into the queue while holding a lock that Append
// takes.
type Journal interface {
	// Append buffers rec and returns its sequence number: numbers grow by one
	// per record, in Append order. It fails at once with ErrNoSpace when
	// the record cannot be given room, or ErrJournal after a write failure;
	// the queue then leaves its state unchanged.
	Append(rec Record) (seq uint64, err error)
	// Committed returns the highest sequence number that may be
	// acknowledged: written, and synced when the fsync policy asks for it.
	// If the journal has failed, err is non-nil and every record above seq
	// will never be committed.
	Committed() (seq uint64, err error)
	// Subscribe registers fn, called from the journal's own goroutine
	// (never with a journal lock held) each time Committed changes.
	Subscribe(fn func())
	// File returns the number of the log file holding job id's latest whole
	// record, or 0 (stats-job "file").
	File(id uint64) int
}

// Flusher is implemented by a journal whose Append only buffers records and
// whose records are written by the goroutines that want them written (the
// event loop of a server, at the end of its batch of commands; a caller
// about to wait for a commit; the queue's timer driver after firing). A
// journal without it writes its records on its own (package wal/raft).
//
// Concurrency: Flush is safe for concurrent use and is called with no lock
// of the queue held. It writes every record appended before the call, by
// any goroutine, to the operating system, or returns once another
// goroutine has; it may wait for such a write(2), never for an fsync, and
// never for a lock held across one. A failure to write is reported through
// Committed, like any other.
type Flusher interface {
	Flush()
}

// Flush has the journal write the records appended so far (see Flusher);
// a no-op in memory or with a journal that writes on its own. Call it with
// no lock of the queue held, before acknowledging changes or waiting for
// their commit.
func (q *Queue) Flush() {
	if q.flusher != nil {
		q.flusher.Flush()
	}
}

// Subscribe registers fn to be called each time the queue's journal commits
// (Committed may then answer differently), from the journal's own goroutine
// and never with a queue lock held. Without a journal fn is never called:
// every change is committed as it is made. It is how a server learns that
// replies waiting for a commit may be sent, without polling; the journal
// comes with the queue, so the subscription cannot be forgotten or given a
// different journal.
func (q *Queue) Subscribe(fn func()) {
	if q.journal != nil {
		q.journal.Subscribe(fn)
	}
}
