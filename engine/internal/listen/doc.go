// Package listen turns an engine listen address ("host:port", ":port" or
// "unix:/path") into a bound socket: dual-stack TCP with keep-alive, or a
// Unix socket, clearing one left behind by a dead process and refusing one
// a live server still answers on. Bind failures come back as a *BindError
// naming the address and the system's reason.
//
// It imports only the standard library. Its functions keep no state and
// are safe for concurrent use.
package listen
