// Package commit waits for journal commits without polling: a Broadcast
// wakes every goroutine waiting on it each time it is signalled, and a
// Waiter built on one answers "is change seq durable yet?" for a
// jobs.Queue, woken by the journal's commit notification. The protocol
// server (its finishers of closed connections), the embedded queue
// (engine/embed) and the admin API's actions all wait through it.
//
// It imports jobs and the standard library.
//
// Concurrency: Broadcast's zero value is ready and safe for concurrent
// use; a Waiter is safe for concurrent use once Init has returned, and
// its Notify never blocks (it runs on the journal's goroutine).
package commit
