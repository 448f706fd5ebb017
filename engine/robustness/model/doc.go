// Package model is a sequential specification of the beanstalk queue for
// porcupine (github.com/anishathalye/porcupine), the linearizability
// checker: the robustness suite (package robustness) records what its
// clients sent and heard, and Check decides whether some order of those
// operations, each taking effect at one instant between its call and its
// return, explains every reply.
//
// # What it models
//
// Jobs in several tubes, each named by its body (every put of a history
// carries a body of its own, so a reply's body says which put it came
// from), with their id once a reply told it, state (ready, reserved,
// delayed, buried), priority, owner while reserved and the counters
// stats-job shows. The operations: put (ready, or delayed for longer than
// any history lasts), reserve and reserve-with-timeout over a watch list,
// delete, release, bury, touch, kick, kick-job, peek, peek-ready,
// peek-delayed, peek-buried, stats-job, and a connection's close (its
// reserved jobs go back to ready). Time is not modelled: histories use a
// TTR far longer than they last, so a TTR never runs out inside one, and
// delayed jobs never come due by themselves (only kick moves them).
//
// stats-job is checked for tube, state, priority and the counters; a
// single node's reserve count is not (it is not logged: after a restart it
// counts again from the job's last record, as beanstalkd's does).
//
// Order: ready jobs are served by priority, then id, across the watched
// tubes; buried jobs are kicked first buried, first kicked; delayed jobs
// (all with the same delay) in the order they were delayed. A kick hands
// each job it moves to a waiting reserve before it moves the next (as
// beanstalkd does), so a reserve that waited may get a kicked job out of
// order. A queue rebuilt
// from its log (a restart, a new leader: the Restore operation) has its
// buried jobs in the order they were put, as beanstalkd's after a restart.
//
// # Outcomes not known
//
// A reply that never came (a timeout, a closed connection) or that says
// nothing about the outcome (INTERNAL_ERROR, OUT_OF_MEMORY after the
// command ran) is recorded with Output.Unknown and an infinite return
// time: the operation may have taken effect at any instant after its call,
// or never. The model then carries every state that could follow (a set,
// as etcd's robustness model does), and a later reply that only one of
// them explains prunes the others. Reads whose outcome is unknown carry no
// information and are best left out of the history.
//
// In a cluster (Config.Cluster) a leader's death leaves the jobs it had
// reserved reserved by nobody (orphans) until their TTR ends; any
// connection that names one may finish it. The model lets a closed
// connection's jobs become orphans instead of ready, and lets another
// connection delete, release, bury or touch a job it did not reserve. A
// second reserve of a job inside its TTR is never allowed.
//
// On a single node a read may see a put in the instant before its write
// fails (its reads do not wait for the disk; the put's reply is then
// OUT_OF_MEMORY or INTERNAL_ERROR, an outcome not known): a Restore may
// drop a job whose put was never acknowledged even if a read saw it. An
// acknowledged put is never dropped, and a cluster drops nothing.
//
// # Limits
//
// porcupine keeps every state it reaches for the whole search. Check takes
// Limits - its time, the possible queues one state may hold, the bytes of
// states it may make - and stops at the first one passed: the verdict is
// then porcupine.Unknown with Result.Reason, never Ok and never Illegal
// (a step refused for a limit is no evidence). Unknown is not a pass.
//
// # Partitions
//
// Operations carry a Group: the robustness clients of one group use only
// that group's tubes and the ids they learnt there, so groups are
// independent and porcupine checks them apart (and in parallel). Keep
// groups small: the search is exponential in the operations that overlap.
//
// # Concurrency
//
// Everything here is a pure function of its arguments; Check may be called
// from several goroutines at once. It imports porcupine and the standard
// library only.
package model
