// Package engine serves the beanstalk protocol over TCP or a Unix socket,
// on gnet v2 event loops, in front of a jobs.Queue. It is the only package
// that knows gnet; the wire format lives in package codec and the queue in
// package jobs.
//
// # Embedding in a Go program
//
// Open gives a program a queue of its own, in memory or persistent, used
// in-process with blocking, context-aware calls and served on a port too if
// wanted (see the examples):
//
//	q, err := engine.Open(engine.Options{Dir: dir}) // Dir "": in memory
//	if err != nil { ... }
//	defer q.Close()
//	id, err := q.Put(ctx, "emails", body, engine.PutOptions{}) // durable on return
//	job, err := q.Reserve(ctx, "emails")                       // blocks; ctx ends it
//	err = job.Delete(ctx)
//	w, err := q.StartWorker(handle, engine.WorkerOptions{Tubes: []string{"emails"}, Concurrency: 8})
//	srv, err := q.Serve(ctx, engine.Config{Addr: ":11300"}) // remote workers, any client
//
// # Serving
//
//	srv, err := engine.Start(ctx, engine.Config{Addr: "127.0.0.1:0"})
//	if err != nil { ... }
//	defer srv.Stop(context.Background())
//	fmt.Println("serving on", srv.Addr()) // the port 0 resolved
//
// With no Config.Queue the Server creates a queue and drives its timers; a
// program that passes its own queue (to share it, or to use a manual clock)
// runs Queue.Run itself. A daemon that must bind before it can open its
// journal (it drops privileges in between) uses Listen, then Serve with a
// Backend; clients that connect in between wait in the kernel's backlog.
//
// # How a connection is served
//
// Each connection has a codec.Decoder, a jobs.Session and a reply buffer.
// OnTraffic decodes every complete command in the buffered input, executes
// it, appends its reply, and writes all the replies of the batch at once.
// Three things hold later commands back:
//
//   - a reserve that must wait: the session's wake function calls gnet's
//     Wake when the outcome (a job, TIMED_OUT, DEADLINE_SOON) is ready, and
//     OnTraffic then delivers it and goes on with the buffered commands
//     (bytes already buffered raise no read event of their own);
//   - quit: nothing after it runs; the connection closes once its replies
//     are written;
//   - a slow reader: past Config.SlowReaderLimit bytes of queued replies the
//     connection's commands wait, and the ticker re-examines it.
//
// A reply to a change that the journal has not committed yet is held, with
// every reply after it, in command order; the commands themselves keep
// running. Journal commits (Config.Subscribe) wake the connection to send
// them. A client that keeps sending while its commands wait is cut off
// past Config.InboundLimit. No protocol error closes a connection; only
// quit, end of input, an I/O error, Stop and those caps do.
//
// A client that half-closes gets answers to what it sent before: a pending
// reserve is answered TIMED_OUT (as by the reference), and held replies are
// finished on a duplicate of the socket once committed.
//
// # Concurrency
//
// Connection state belongs to its event loop. Other goroutines reach a
// connection only through gnet's Wake: the queue (reserve outcomes), the
// journal (commits), the ticker (stalled connections) and Stop. The
// registry that lists connections for them has one mutex, taken on open,
// close and state changes, never on the per-command path. Logging: -V
// (Verbose 1) logs accepts and closes at debug level, Verbose 2 every
// command and reply at trace level; nothing is logged per command at 0.
package engine
