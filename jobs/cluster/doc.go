// Package cluster is the vocabulary every part of stalkd uses to speak of a
// replicated cluster: one Status (a member's view of its raft cluster) and
// one ErrNotLeader. Package wal/raft fills a Status; the protocol's
// stats-cluster (package engine), the admin API's /v1/cluster (package
// engine/admin) and stalkctl's "cluster" commands carry the same value, each
// in its own wire format, with no adapter in between.
//
// It imports only the standard library, and nothing imports it for more
// than these types: a leaf, so that the daemon's parts, the admin API and
// the operators' CLI can share it without importing one another. It sits
// under jobs because jobs is the vocabulary they all share already (a
// cluster replicates a jobs.Queue); it does not import jobs.
//
// Concurrency: a Status is a value; copy it freely. ErrNotLeader is a
// sentinel: compare with errors.Is.
package cluster
