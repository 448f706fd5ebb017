// Package node composes a stalkd server: the one way to make one, used by
// the daemon (cmd/stalkd), by Go programs that serve an embedded queue, and
// by the tests. A node is a single server - the protocol engine serving a
// queue, its write-ahead log opened (a beanstalkd binlog imported first)
// and replayed - or, with Config.Cluster.ID, a member of a replicated
// cluster - a client front that carries each connection to the leader, a
// raft node, and the engine of its own leadership terms, which serves its
// own clients directly. Either kind may serve TLS, tokens, a policy file
// that is the truth, and the admin port:
//
//	n, err := node.Start(ctx, node.Config{
//		Engine:  engine.Config{Addr: "127.0.0.1:11300"},
//		Journal: node.Journal{Dir: "/var/lib/stalkd", SyncInterval: 50 * time.Millisecond},
//		Admin:   node.Admin{Addr: "127.0.0.1:11380"},
//	})
//	if err != nil { ... }
//	defer n.Stop(ctx)   // graceful: answers what is in flight, syncs the log
//	n.Reload()          // SIGHUP: TLS certificates, node TLS, the policy file
//	n.Drain()           // SIGUSR1: puts are refused from now on
//
// An embedded queue (package engine/embed) is served by passing it as
// Config.Queue; the program keeps using it in-process.
//
// What stays with the daemon: flags, privilege drop (Config.AfterBind runs
// it between binding and opening the journal, as the reference does),
// signals, exit codes (from the kinds ErrBind and ErrClusterDir, and
// *ConfigError), socket activation and the open-file limit (Engine.Listener,
// Engine.MaxConns).
//
// # What it owns, what it may import
//
// It owns the composition and its configuration (Config, validated in one
// place, Validate, whose errors name fields in the caller's words through
// Config.Names), the policy file (LoadPolicyFile), the binlog figures of
// the stats document, and the adapters between a raft node and the
// engine, the front and the admin API. It imports engine, engine/admin,
// engine/embed, engine/front, engine/tlscert, jobs, wal and wal/raft;
// nothing imports it but programs and tests.
//
// # Log
//
// Config.Logger is the root: the node gives each part its component
// (engine, wal, cluster, admin) and logs its own lines - start-up, the
// policy file, drain, reloads, the stop - under component cmd on a single
// server and cluster on a member, the lines the daemon has always written.
//
// # Concurrency
//
// Every method of Node is safe for concurrent use; Stop runs once.
package node
