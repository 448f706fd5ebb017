// Package jobsmodel is a deliberately naive reference model of the queue
// core (package jobs) and a harness that runs the same operations against
// both and compares every reply. It is test support: the model-based test
// of package jobs and the FuzzQueue target of package fuzz drive it; nothing
// else should import it.
//
// # The model
//
// Model keeps plain slices and maps and answers every question by a linear
// scan: the next job to reserve is the minimum (pri, id) over all ready jobs
// of the watched, unpaused tubes, found by looking at every job. It has its
// own fake time, moved only by Advance, which then fires timers the way
// Queue.Tick does: job timers (delays ending at the deadline, TTRs running
// out one nanosecond after it) in (time, id) order, then pauses ending in
// (time, tube creation) order, then waits ending. What it encodes is the
// behaviour the reference server shows (ordering by priority then id, delays
// and TTRs by deadline, the round-robin waiter order, kick's buried-first
// rule), written as directly as possible, so that it can
// be read as a specification.
//
// # The harness
//
// Harness owns a jobs.Queue on a ManualClock, a Model, and a fixed number of
// session slots. Step applies one Op to both sides and then compares the
// reply, every session's wake count, wait state, used tube and watch list,
// Stats, ListTubes, every StatsTube and the StatsJob of every live job. A
// session that waits in reserve accepts only Take, CancelWait and Close
// until its outcome is taken; Step skips other session operations on it,
// as the queue's contract demands.
//
// Concurrency: none. A Harness and its Model are used by one goroutine.
package jobsmodel
