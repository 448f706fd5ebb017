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
//     (SetPolicy, RemovePolicy, RestorePolicy, RewritePolicies) and by a
//     schedule firing; they then take tube locks. Wake functions never run
//     under it.
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
// dead-letters a spent job (deadletter.go), max_ready refuses puts with
// ErrQueueFull, reserve_rate holds a tube back like a pause (holdback.go)
// and schedules put recurring jobs from timers in the wheel (schedule.go,
// internal/cron). A tube without a policy pays a nil check.
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
// policies.go (the policy map and its changes), schedule.go (a compiled
// policy's schedules), journal.go (the journal seam), restore.go (replay,
// compaction, replicated mode), stats.go, inspect.go (peek and monitoring
// views), list.go (ListJobs).
package jobs
