// Package client is the small beanstalk protocol client that stalkctl uses:
// one connection, one command at a time (or a pipelined batch of
// stats-tube), replies parsed into typed values, and the protocol's error
// words mapped to the sentinel errors in errors.go.
//
// It speaks only the wire protocol (including stalkd's additive clear-tube
// and list-jobs), so it works against stalkd and a plain beanstalkd alike.
// It imports the standard library only; it must never import the server's
// packages (engine, jobs, wal, codec): stalkctl is a client of any server.
//
// # Concurrency
//
// A Conn is not safe for concurrent use: one goroutine issues its commands.
// Every command sets an I/O deadline of Conn.Timeout (when non-zero), so a
// silent server cannot hang a caller forever. The one exception is
// Interrupt, which another goroutine may call to make the command in
// progress fail at once (stalkctl top on a signal).
package client
