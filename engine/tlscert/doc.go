// Package tlscert holds the TLS material of stalkd's listeners: a
// certificate and key read from files and reloaded on demand (CertFiles;
// the daemon reloads on SIGHUP), the server configuration built from them
// with an optional client CA for mutual TLS (ServerTLSConfig), the
// mutual TLS of a cluster's node traffic (NodeTLS: the raft transport and
// a front's connections to the leader's engine), and the bound on a
// client's handshake (HandshakeTimeout). The engine's TLS
// listener and a cluster's client front both use it; the TLS connections
// themselves are served by package engine (engine/tls.go), which runs them
// through the same per-connection protocol code as plain ones.
//
// It imports only the standard library.
//
// Concurrency: CertFiles and NodeTLS are safe for concurrent use; GetCertificate,
// called by every handshake, reads the current pair without a lock, and a
// Reload swaps it atomically, leaving open connections alone.
package tlscert
