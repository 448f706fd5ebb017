// Package embed is stalkd embedded in a Go program: Open gives the program
// a queue of its own, in memory or persistent (a write-ahead log in a
// directory), used in-process through blocking, context-aware calls, and
// served on a port too if wanted (by a node, package engine/node), so that
// remote workers and producers with any beanstalk client see the same
// jobs:
//
//	q, err := embed.Open(embed.Options{Dir: dir}) // Dir "": in memory
//	if err != nil { ... }
//	defer q.Close()
//	id, err := q.Put(ctx, "emails", body, embed.PutOptions{}) // durable on return
//	job, err := q.Reserve(ctx, "emails")                      // blocks; ctx ends it
//	err = job.Delete(ctx)
//	w, err := q.StartWorker(handle, embed.WorkerOptions{Tubes: []string{"emails"}, Concurrency: 8})
//	n, err := node.Start(ctx, node.Config{Queue: q, Engine: engine.Config{Addr: ":11300"}}) // remote workers, any client
//
// # What it owns, what it may import
//
// It owns the embedding API - Queue, Job, Worker and their options - and
// the glue between a queue and its journal: opening and replaying the
// log, waiting for commits (engine/internal/commit) before a call returns.
// The daemon's single server opens its queue here too (package
// engine/node), so the journal, its replay and the policies are one code
// path. It imports jobs, wal, codec and zerolog; not engine - a program
// that embeds a queue links no protocol server and no gnet unless it
// serves it through engine/node (embed_deps_test.go pins this) - and
// nothing of the program's (cmd/...).
//
// # Concurrency
//
// Every method of Queue, Job and Worker is safe for concurrent use. Calls
// that change the queue return once the change is durable under the
// Options' fsync policy; those that wait (Reserve, Sync, ...) end with
// their context or with Close, which returns ErrClosed to them.
package embed
