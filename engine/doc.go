// Package engine serves the beanstalk protocol over TCP or a Unix socket,
// on gnet v2 event loops, in front of a jobs.Queue. It is the only package
// that knows gnet; the wire format lives in package codec and the queue in
// package jobs.
//
// # The rooms
//
// engine is the protocol server's core: per-connection state, command
// execution, the reply path, back-pressure, stats, and the two transports
// that feed one connection logic (gnet event loops for plain sockets, a
// goroutine per TLS connection). What is not that core lives in a room of
// its own, each with a doc.go that says what it owns, what it may import
// and its concurrency contract:
//
//   - engine/embed: the embedding API, stalkd as a library (Open, Queue,
//     Job, Worker). engine's own public face is the server (Start, Listen,
//     Serve, Config); a program that wants a queue starts with embed.Open.
//   - engine/front: a cluster member's client port, which carries every
//     client to the leader's engine (the third connection runtime) - or,
//     on the leader itself, gives it to the engine (Server.Adopt), which
//     hands it back when the node stops leading (adopt.go).
//   - engine/admin: the HTTP admin listener (metrics, health, JSON API,
//     dashboard); it reads the queue and never imports engine.
//   - engine/tlscert: certificate files, reload, server TLS config.
//   - engine/internal/commit, listen, memreturn, ratelog, token: pieces the
//     rooms share (the commit waiter; binding; giving memory back;
//     rate-limited warnings; auth tokens).
//   - engine/enginetest (and inproc): the wire-test kit, imported by
//     tests only; engine/difftest: the differential tests.
//
// TLS connections stay in engine (tls.go, transport.go) rather than a
// subpackage: a TLS connection is served by the same unexported conn as a
// plain one - its decoder, session, held replies, budget and registry -
// behind the small transport seam, and splitting it out would export
// the conn's internals or give TLS a second copy of them.
//
// # The arrows
//
// Who may import whom, the table cmd/stalkd/arch_table_test.go declares
// and TestArchitectureArrows enforces (every package, tests included; a
// package missing from the table fails it). "code" is what a package's
// non-test files may import, "tests" what its tests may import besides;
// the standard library is free except in codec and jobs (no network, disk
// or system); frameworks are named by module, without host and version.
// (Generated from cmd/stalkd/arch_table_test.go's arrows by `go test
// ./cmd/stalkd -run TestEngineDocArrows -update`; do not edit.)
//
//	package                       code                                          tests also
//	codec                         -                                             stretchr/testify, yaml.v3
//	jobs                          jobs/internal/{cron,tubename,wheel},          jobs/jobsmodel, stretchr/testify
//	                              jobs/policy
//	jobs/cluster                  -                                             -
//	jobs/internal/cron            -                                             -
//	jobs/internal/tubename        -                                             -
//	jobs/internal/wheel           -                                             stretchr/testify
//	jobs/jobsmodel                jobs                                          -
//	jobs/policy                   jobs/internal/{cron,tubename}                 -
//	wal                           jobs, wal/binlog, wal/failpoint,              stretchr/testify
//	                              wal/internal/fields, rs/zerolog,
//	                              tidwall/wal, x/sys
//	wal/binlog                    -                                             engine/enginetest, stretchr/testify
//	wal/failpoint                 -                                             -
//	wal/internal/fields           jobs                                          stretchr/testify
//	wal/raft                      jobs, jobs/cluster, wal/failpoint,            engine/enginetest, engine/tlscert,
//	                              wal/internal/fields, hashicorp/go-hclog,      stretchr/testify
//	                              hashicorp/raft, hashicorp/raft-wal,
//	                              rs/zerolog
//	engine                        codec, jobs, jobs/cluster,                    engine/enginetest,
//	                              engine/internal/commit,                       engine/enginetest/inproc,
//	                              engine/internal/listen,                       beanstalkd/go-beanstalk, stretchr/testify,
//	                              engine/internal/memreturn,                    yaml.v3
//	                              engine/internal/ratelog,
//	                              engine/internal/token, engine/tlscert,
//	                              panjf2000/gnet, rs/zerolog, x/sys
//	engine/admin                  codec, jobs, jobs/cluster,                    engine, engine/enginetest,
//	                              engine/internal/{commit,token},               beanstalkd/go-beanstalk, chromedp/cdproto,
//	                              prometheus/client_golang, rs/zerolog          chromedp/chromedp,
//	                                                                            prometheus/client_model,
//	                                                                            prometheus/common, stretchr/testify
//	engine/difftest               -                                             codec, engine, engine/enginetest,
//	                                                                            engine/enginetest/inproc, rs/zerolog,
//	                                                                            stretchr/testify
//	engine/embed                  codec, jobs, wal,                             engine, engine/enginetest, engine/node,
//	                              engine/internal/{commit,memreturn},           beanstalkd/go-beanstalk, stretchr/testify
//	                              rs/zerolog
//	engine/enginetest             codec, jobs, rs/zerolog, stretchr/testify,    -
//	                              x/sys
//	engine/enginetest/inproc      engine, engine/enginetest, engine/node,       -
//	                              rs/zerolog, stretchr/testify
//	engine/front                  codec, engine/tlscert, rs/zerolog             engine, engine/enginetest,
//	                                                                            beanstalkd/go-beanstalk, stretchr/testify
//	engine/internal/commit        jobs                                          stretchr/testify
//	engine/internal/listen        -                                             -
//	engine/internal/memreturn     jobs                                          stretchr/testify
//	engine/internal/ratelog       -                                             stretchr/testify
//	engine/internal/token         -                                             stretchr/testify
//	engine/node                   jobs, jobs/cluster, wal, wal/raft, engine,    engine/enginetest,
//	                              engine/admin, engine/embed, engine/front,     beanstalkd/go-beanstalk, stretchr/testify
//	                              engine/tlscert, rs/zerolog, yaml.v3
//	engine/robustness             -                                             engine/enginetest,
//	                                                                            engine/robustness/model,
//	                                                                            anishathalye/porcupine, stretchr/testify
//	engine/robustness/model       anishathalye/porcupine                        stretchr/testify
//	engine/tlscert                -                                             engine/enginetest, stretchr/testify
//	cmd/examples/gateway          engine, engine/embed, engine/node,            stretchr/testify
//	                              rs/zerolog
//	cmd/stalkctl                  jobs/cluster, wal, wal/binlog,                jobs, engine, engine/admin, engine/embed,
//	                              cmd/stalkctl/internal/client, x/sys, yaml.v3  engine/enginetest,
//	                                                                            engine/enginetest/inproc, engine/node,
//	                                                                            beanstalkd/go-beanstalk, rs/zerolog,
//	                                                                            stretchr/testify
//	cmd/stalkctl/internal/client  codec                                         -
//	cmd/stalkd                    jobs, wal, wal/raft, engine, engine/node,     codec, engine/enginetest,
//	                              rs/zerolog, x/sys                             beanstalkd/go-beanstalk, stretchr/testify
//	benchmarks/cmd/stalkd-bench   benchmarks/loadgen                            stretchr/testify
//	benchmarks/loadgen            -                                             engine/enginetest, stretchr/testify
//	fuzz                          -                                             codec, jobs, jobs/jobsmodel, wal,
//	                                                                            wal/binlog, wal/raft, stretchr/testify
//
// Read downwards: the programs (cmd/...) sit on the rooms, the rooms on
// codec and jobs, wal and wal/raft beside them on jobs only. No arrow
// leaves codec or jobs; none points from wal into engine or codec, from
// engine/admin or engine/front into engine (their tests excepted), or from
// stalkctl into the server but for the file formats (wal and wal/binlog,
// which it reads and writes offline). (wal/raft's tests borrow the
// wire-test kit and the node-TLS helpers; its code imports neither.)
//
// # Serving
//
//	srv, err := engine.Start(ctx, engine.Config{Addr: "127.0.0.1:0"})
//	if err != nil { ... }
//	defer srv.Stop(context.Background())
//	fmt.Println("serving on", srv.Addr()) // the port 0 resolved
//
// Start serves a queue the Server creates, and whose timers it drives. A
// program that serves its own queue (to share it, to give it a journal or a
// manual clock) calls Listen, then Serve with a Backend holding the queue,
// and runs Queue.Run itself; the queue brings its journal, whose commits the
// Server subscribes to. A daemon that must bind before it can open its
// journal (it drops privileges in between) does the same; clients that
// connect in between wait in the kernel's backlog.
//
// # Accepting connections
//
// The Server binds with Go's net.Listen and runs its own accept loop, which
// hands each connection to gnet's event loops (gnet.Client.Enroll); gnet's
// acceptor is not used, because it stops the whole engine when accept
// fails. Past Config.MaxConns, and whenever the process runs out of file
// descriptors, new connections are closed at once (a spare descriptor is
// released to accept and close what waits in the backlog) and a warning is
// logged at most once a second; the connections already open are served as
// before. The loop costs a dup and a close per connection, nothing per
// command. With Config.IdleTimeout, a connection that sends nothing for
// that long is closed, unless a reserve of its own is waiting.
// Config.Listener serves a socket opened elsewhere (systemd socket
// activation) instead of binding Addr.
//
// # TLS
//
// Config.TLSAddr adds a listener that speaks the protocol inside TLS
// (crypto/tls; gnet has none; certificates from package engine/tlscert). Its connections run the same protocol code
// as plain ones - one conn, one reply path - behind a small transport seam
// (transport.go): each TLS connection has an owner goroutine in place of an
// event loop, and reader and writer goroutines around the tls.Conn. The
// reader stops while input waits unconsumed, so TCP holds back a TLS client
// that does not keep up. CertFiles reloads the certificate without touching
// open connections.
//
// # Timers
//
// Nothing in the engine runs on a fixed beat: stalled connections are
// polled only while there are some, the idle sweeper sleeps until the next
// possible idle deadline, and an idle server sleeps (see nudge.go).
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
//     connection's commands wait, and the nudger re-examines it every
//     Config.TickInterval.
//
// A reply to a change that the journal has not committed yet is held, with
// every reply after it, in command order; the commands themselves keep
// running. At the end of the batch, before writing the replies, the
// connection has the journal write what the batch logged (Queue.Flush: one
// write(2) into the page cache, on this event loop, never an fsync): with
// -f MS and -F that commits it, and the replies go out in the same
// callback. With -f0 the journal's sync goroutine commits after its
// fsync, and journal commits (Queue.Subscribe) wake the connection to send
// them. A client that keeps sending while its commands wait is cut off
// past Config.InboundLimit (blocked in reserve) or
// Config.StalledInboundLimit (a slow reader), and the memory held for all
// such clients together is capped by Config.HeldBudget (see budget.go). No protocol error closes a connection; only
// quit, end of input, an I/O error, Stop and those caps do.
//
// A client that half-closes gets answers to what it sent before: a pending
// reserve is answered TIMED_OUT (as by the reference), and held replies are
// finished on a duplicate of the socket once committed.
//
// # Concurrency
//
// Connection state belongs to its event loop (or, for TLS, its owner
// goroutine). Other goroutines reach a connection only through Wake: the
// queue (reserve outcomes), the journal (commits), the nudger (stalled
// connections), the idle sweeper and Stop. The registry that lists
// connections for them has one mutex, taken on open, close and state
// changes, never on the per-command path.
//
// # Logging
//
// The Server logs to Config.Logger, whose level is the only verbosity
// control (cmd/stalkd maps -V to debug and -VV to trace): info logs the
// start-up line and problems; debug adds accepts and closes; trace adds
// every command line (a put's body is never logged, only its size) and the
// first line of every reply. The level is read once, in Listen; nothing is
// logged per command above trace. The convention, shared by every package:
// messages lowercase without a package prefix; the part that logs is the
// "component" field, which the program sets when it hands out loggers
// (cmd/stalkd gives the engine component=engine, so the engine adds none);
// field names snake_case with units in the name (took_ms, a float of
// milliseconds; size_bytes); errors through Event.Err. gnet's own chatter
// is dropped; its warnings and errors come through marked library=gnet.
package engine
