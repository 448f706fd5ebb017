package node

import (
	"time"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/embed"
	"github.com/stalkd/stalkd/wal/raft"
)

// Config configures a Node: a single server, or (with Cluster.ID) a
// member of a replicated cluster. The zero value is usable: an in-memory
// single server on engine.DefaultAddr. Start validates it (Validate) and
// never modifies it; its slices and the files it names are read, not
// kept.
type Config struct {
	// Engine is how the protocol port listens and talks: Addr ("" means
	// engine.DefaultAddr; engine.NoPlainListener with TLSAddr for a
	// TLS-only server), MaxJobSize, MaxConns, IdleTimeout, AuthTokens (the
	// admin API's bearer tokens too), TLSAddr and TLSConfig, and the
	// engine's tuning. A single server may hand over Listener (socket
	// activation). A cluster member serves Addr and TLSAddr with its client
	// front, and the engine of its leadership terms on a free port of the
	// Cluster.Addr host. Logger and ClusterStats are the node's to set.
	Engine engine.Config
	// TLS names the PEM files of Engine.TLSAddr's certificate and key
	// (and ClientCA, which requires client certificates): Start loads
	// them, Reload reads them again. Without them Engine.TLSConfig is
	// served as given, never reloaded.
	TLS TLSFiles

	// Journal makes the queue persistent (single server), or holds the
	// raft log and snapshots (cluster member, DIR/raft).
	Journal Journal
	// Queue, if set, is an embedded queue to serve (single server only;
	// Journal must be zero): the caller opened it and closes it after Stop.
	// Closing it stops the node at once.
	Queue *embed.Queue
	// PolicyFile, if set, is a YAML or JSON file of tube policies that is
	// the truth (LoadPolicyFile): applied as one change at Start (in a
	// cluster, each time this node becomes leader) and on Reload; the admin
	// API refuses policy changes (409 managed_by_file).
	PolicyFile string
	// Admin is the admin port (metrics, health checks, JSON API,
	// dashboard); off without Admin.Addr.
	Admin Admin
	// Cluster makes the node a cluster member (with Cluster.ID).
	Cluster Cluster

	// Logger is the root logger, without a component: the node names each
	// part's lines (engine, wal, cluster, admin, tls, and cmd for its own,
	// as the daemon always has). The zero Logger discards everything.
	Logger zerolog.Logger
	// AfterBind, if set, runs once the client ports are bound and before
	// the journal (or raft) opens: the daemon drops privileges there (-u).
	// An error stops Start, and is returned as it is.
	AfterBind func() error
	// Names, if set, names a Config field (such as "Cluster.ID") in the
	// node's errors and log lines: the daemon passes its flags. nil: the
	// field's own name.
	Names func(field string) string
}

// TLSFiles are the PEM files of the client TLS listener.
type TLSFiles struct {
	Cert, Key string
	// ClientCA, if set, requires a client certificate signed by a CA in
	// it (mutual TLS).
	ClientCA string
}

// Journal is the queue's write-ahead log (package wal): see embed.Options
// for each setting, which it passes on as they are.
type Journal struct {
	// Dir holds the log; "" keeps every job in memory (the other settings
	// then only shape the stats document: SegmentSize is reported).
	Dir          string
	SyncInterval time.Duration // 0: fsync before each acknowledgement
	NoSync       bool          // acknowledge once written; fsync left to the OS
	// SegmentSize is the log's file size: 0 means wal.DefaultSegmentSize,
	// other values are clamped (wal.ClampSegmentSize); the stats document
	// reports it as given (binlog-max-size).
	SegmentSize int64
	Salvage     bool // open a log damaged in the middle, keeping what is readable
}

// Admin is the admin listener (package engine/admin).
type Admin struct {
	// Addr is host:port or unix:/path; "" leaves the listener off.
	Addr string
	// MetricsMaxTubes caps the tubes given per-tube metrics (0: the
	// default, negative: no cap).
	MetricsMaxTubes int
}

// Cluster makes the node a member of a replicated cluster (package
// wal/raft).
type Cluster struct {
	// ID is this node's id; "" runs a single server.
	ID string
	// Addr is the host:port of this node's raft transport, bound and
	// advertised; the leader's engine listens on a free port of its host.
	Addr string
	// Peers are the initial voters (raft.Config.Peers).
	Peers []raft.Peer
	// Timeout is raft's heartbeat and election timeout (the leader lease is
	// half); 0 means raft.DefaultTiming's.
	Timeout time.Duration
	// TLS, with all three files, runs node traffic (raft, and the fronts'
	// connections to the leader's engine) inside mutual TLS; reloaded by
	// Reload.
	TLS NodeTLSFiles
}

// NodeTLSFiles are the node-to-node TLS files (tlscert.LoadNodeTLS).
type NodeTLSFiles struct {
	Cert, Key, CA string
}

// given reports whether any node TLS file is named.
func (f NodeTLSFiles) given() bool { return f.Cert != "" || f.Key != "" || f.CA != "" }

// isZero reports whether j asks for nothing.
func (j Journal) isZero() bool { return j == Journal{} }
