// Package jobs is stalkd's queue core: the beanstalk data model as an
// embeddable Go library with no network code.
//
// A Queue holds tubes (named queues, created on first use and dropped the
// moment nothing references them) and jobs. A job is ready (in its tube's
// heap, ordered by priority then id), delayed (until a deadline), reserved
// (by one Session, until it deletes, releases or buries it, or its
// time-to-run ends) or buried (in its tube's FIFO, until kicked). A Session
// is one client: it uses one tube for put, peek-* and kick, and watches a
// list of tubes for reserve.
//
// # Usage
//
//	q := jobs.New(jobs.Config{})
//	go q.Run(ctx)                      // drives delays, TTRs, pauses, timeouts
//	s := q.NewSession(nil)
//	id, _, _ := s.Put(jobs.PutRequest{Pri: 10, TTR: time.Minute, Body: []byte("hello")})
//	job, _ := s.Reserve(0)            // 0: do not wait
//	_, _ = s.Delete(job.ID)
//
// A Reserve that has to wait returns ErrWaiting; the queue later calls the
// session's wake function and the owner collects the job (or ErrTimedOut,
// or ErrDeadlineSoon) with TakeOutcome. This is how the network edge keeps
// its event loops from ever blocking.
//
// # Time
//
// Time is an input: the queue reads its Clock and fires timers only when Run
// or Tick says so. Tests use a ManualClock and call Tick; nothing sleeps.
// Timers live in sharded hierarchical timing wheels (O(1) arm and cancel, no
// goroutine or time.Timer per job).
//
// # Durability
//
// With a Journal (package wal), every change that must survive a restart is
// appended under the job's tube lock before it is applied; mutating methods
// return a sequence number, and the caller acknowledges the change only once
// Queue.Committed says so. Without one, sequence numbers are 0. A journal
// that is a Flusher only buffers in Append: whoever wants the records
// written calls Queue.Flush (a server at the end of each batch of
// commands, a caller before it waits for a commit; Run after firing
// timers).
//
// # Concurrency and lock order
//
// Queue methods are safe for concurrent use; a Session's methods are called
// by its owner only, one at a time. The locks, in the order they nest:
//
//  0. policies.setMu - taken first and alone by the policy changes
//     (SetPolicy, UpdatePolicySeq, RemovePolicy, RestorePolicy,
//     RewritePolicies), by PolicyRuns and by a schedule firing; they then
//     take tube locks. Wake functions never run under it, nor does
//     anything but UpdatePolicySeq's pure function.
//  1. tube.mu - one per tube. Reserve holds several, and a job moving to
//     its dead-letter tube holds two, always in ascending tube serial
//     (creation) order.
//  2. Session.mu - under a tube lock: the session's reserved list and its
//     pending reserve outcome (in its wait state, allocated by the owner on
//     the first wait before the session is published as waiting, so every
//     goroutine that wins a wait finds it).
//  3. Leaves, never held while taking another lock: the id index shards,
//     the timer shards, the tube registry (which reads the policy map,
//     policies.mu, the innermost leaf, when it creates a tube), and the
//     journal's own lock
//     (Journal.Append runs under a tube lock, so a journal must never call
//     into the queue while holding a lock Append needs).
//
// Deleted jobs are recycled (recycle.go), so a job pointer found without
// its tube lock - in the id index, a timing wheel, a session's list - is
// only a hint: it is used to find the tube, and the job is read only once
// the index, consulted again under the tube lock, still maps its id to it
// (lockJob, stillLive).
//
// # Tube policies
//
// A Policy (a value of package jobs/policy, aliased here; POLICIES.md has
// the fine print) is kept by tube name (policies.go) and applied to the tube whenever it exists: max_reserves buries or
// dead-letters a spent job (deadletter.go; a dead-lettered job remembers
// its origin, the reason and the time, and Redrive sends it back),
// max_ready's overflow refuses, buries or dead-letters a put (overflow.go),
// reserve_rate holds a tube back like a pause (holdback.go)
// and schedules put recurring jobs from timers in the wheel (schedule.go,
// internal/cron; schedule_runs.go shows each one's last and next run). A
// change of one field is UpdatePolicySeq with MergePolicyPatch, applied
// under the policy lock. A tube without a policy pays a nil check.
//
// Enforcement sits behind one per-tube hook (hook.go): a policy compiles
// into rules run at three points of a job's life (admit a new job, a job
// entered the tube, a reserved job going back). A new kind of policy is a
// file with its rule and one line in ruleKinds; put.go, timers.go and
// session.go call the hook points, never a kind.
//
// Callbacks (a session's wake function) never run under a queue lock: the
// waits won under a tube lock are collected and finished after it is
// released. Counters are striped per session and summed by Stats.
//
// # Files
//
// One concept each: queue.go (Queue, Config, Clock), vocabulary.go (states,
// limits, documents, error sentinels, the policy aliases), tube.go (a tube
// and the registry), job.go (a job's layout and body), heap.go, index.go
// (id to job), recycle.go (the job pool and the liveness rule), session.go
// (use, watch, close), put.go (put, delete, release, bury, touch),
// reserve.go (reserve and its wait), handoff.go (the moves state changes
// share, and wake-ups), kick.go, clear.go, timers.go (the timing wheels),
// holdback.go (pause and reserve_rate), deadletter.go (max_reserves),
// deadreason.go (what a dead-lettered job remembers, and why it moved),
// move.go (MoveJob, and the move every relocation shares), redrive.go
// (Redrive: a dead-letter tube back to its jobs' origins), policies.go (the
// policy map and its changes), policyset.go (replacing the whole set at
// once), policycounters.go (counters that belong to a policy, not a tube),
// hook.go (a compiled policy and its per-tube hook), overflow.go
// (max_ready), schedule.go (a compiled policy's schedules),
// schedule_runs.go (their last and next runs), journal.go (the journal
// seam), restore.go (replay,
// compaction, replicated mode), stats.go, inspect.go (peek and monitoring
// views), list.go (ListJobs).
package jobs
