// Package policy holds the tube policy as a value: what the queue enforces
// on a tube name (Policy, its Schedules), the limits a policy may ask for,
// and Validate with its *Error naming the offending field. It owns the
// rules of a well-formed policy and nothing of how one is applied: the
// queue (package jobs) keeps policies by tube name, compiles their
// schedules into timers, and enforces them under its tube locks. Package
// jobs re-exports every name here (jobs.Policy, jobs.Schedule,
// jobs.PolicyError, jobs.MaxReserveRate, ...) as aliases, so callers need
// not import this package. Its JSON form is part of the value: a
// schedule's priority and ttr left out are DefaultPriority and DefaultTTR
// (Schedule.UnmarshalJSON), and MergePatch applies an RFC 7386 merge patch.
// POLICIES.md, beside package jobs, has the fine print and examples.
//
// It may import the standard library (encoding/json included) and jobs'
// internal cron and tubename packages; never jobs itself, and nothing
// with I/O.
//
// Concurrency: a Policy is a plain value with no locks. Reading one from
// many goroutines is safe; changing one is the owner's business. Clone
// gives a copy whose Schedule slice is its own. Validate and MergePatch
// only read p.
package policy
