package raft

import (
	"errors"
	"fmt"
	"strings"
	"time"

	hraft "github.com/hashicorp/raft"
	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/jobs"
)

// Peer is one voter of the initial cluster.
type Peer struct {
	ID   string
	Addr string // host:port of its raft transport
}

// ParsePeers parses the --raft-peers flag: id=host:port,id=host:port,...
func ParsePeers(s string) ([]Peer, error) {
	var out []Peer
	seen := map[string]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		id, addr, ok := strings.Cut(item, "=")
		if !ok || id == "" || addr == "" || !strings.Contains(addr, ":") {
			return nil, fmt.Errorf("raft: peer %q: want id=host:port", item)
		}
		if seen[id] {
			return nil, fmt.Errorf("raft: peer id %q twice", id)
		}
		seen[id] = true
		out = append(out, Peer{ID: id, Addr: addr})
	}
	return out, nil
}

// Timing is raft's clock: see DefaultTiming and the package doc.
type Timing struct {
	Heartbeat, Election, LeaderLease, Commit time.Duration
}

// DefaultTiming is tuned for a LAN (see the package doc).
var DefaultTiming = Timing{
	Heartbeat:   300 * time.Millisecond,
	Election:    300 * time.Millisecond,
	LeaderLease: 150 * time.Millisecond,
	Commit:      5 * time.Millisecond,
}

// Config configures a Node. Zero values take the documented defaults; a
// Config is read once by Open and never modified.
type Config struct {
	// ID is this node's raft server id (--raft-id); required.
	ID string
	// Addr is the host:port of this node's raft transport (--raft-addr),
	// bound and advertised to the peers. Ignored with Transport.
	Addr string
	// Peers is the initial voter set (--raft-peers). A node with no raft
	// state bootstraps the cluster with it, unless another peer belongs to
	// a cluster that elected a leader (then it waits to be added); a node
	// with state ignores it.
	// Empty: wait to be added by a running cluster.
	Peers []Peer
	// Dir holds the raft log, stable store and snapshots (DIR/raft);
	// required unless every store below is given.
	Dir string

	// TLS, if set, puts the transport on Addr inside mutual TLS (see
	// NodeTLS); nil: plain TCP. Ignored with Transport.
	TLS *NodeTLS

	// Tests inject these; nil: on Dir, and a TCP transport on Addr.
	Transport     hraft.Transport
	LogStore      hraft.LogStore
	StableStore   hraft.StableStore
	SnapshotStore hraft.SnapshotStore

	// Clock is the leader's queue clock; nil: jobs.NewSystemClock().
	Clock jobs.Clock
	// Timing: zero fields take DefaultTiming's.
	Timing Timing
	// SnapshotThreshold: entries applied between snapshots (default 4096);
	// TrailingLogs: entries kept behind a snapshot for slow followers
	// (default 1024); SnapshotInterval: how often raft checks (default 20s).
	SnapshotThreshold, TrailingLogs uint64
	SnapshotInterval                time.Duration
	// MaxBatchBytes bounds one raft entry (default 1 MiB; one record is
	// never split); MaxInflight bounds entries handed to raft and not yet
	// applied (default 1: measured on 2 shared cores, one entry in flight
	// doubled the records per entry and cut the cluster's CPU per put by a
	// quarter against 4, at no cost to a lone client, whose put is always
	// alone in flight).
	MaxBatchBytes, MaxInflight int
	// ApplyTimeout bounds the wait for room in raft's apply queue (default 5s).
	ApplyTimeout time.Duration

	// OnLeader is called (from the node's leadership goroutine) with the
	// queue to serve once this node is leader and the queue is restored
	// (its Subscribe reaches this term's journal). It starts serving the
	// queue and returns the client address, which the node commits to the
	// log so that the followers forward there; an error ends the term
	// (OnFollower runs) and it is retried while this node leads. OnFollower
	// is called when a term ends; the queue given to OnLeader is dead from
	// then on. Either may be nil; neither may block for long.
	OnLeader   func(q *jobs.Queue) (addr string, err error)
	OnFollower func()

	// Logger receives the cluster's and raft's logs (component "cluster").
	Logger zerolog.Logger
}

func (c *Config) withDefaults() (Config, error) {
	x := *c
	if x.ID == "" {
		return x, errors.New("raft: Config.ID is required")
	}
	if x.Transport == nil && x.Addr == "" {
		return x, errors.New("raft: Config.Addr is required")
	}
	if x.Dir == "" && (x.LogStore == nil || x.StableStore == nil || x.SnapshotStore == nil) {
		return x, errors.New("raft: Config.Dir is required")
	}
	t := &x.Timing
	t.Heartbeat = or(t.Heartbeat, DefaultTiming.Heartbeat)
	t.Election = or(t.Election, DefaultTiming.Election)
	t.LeaderLease = or(t.LeaderLease, DefaultTiming.LeaderLease)
	t.Commit = or(t.Commit, DefaultTiming.Commit)
	x.SnapshotThreshold = or(x.SnapshotThreshold, 4096)
	x.TrailingLogs = or(x.TrailingLogs, 1024)
	x.SnapshotInterval = or(x.SnapshotInterval, 20*time.Second)
	x.MaxBatchBytes = or(x.MaxBatchBytes, 1<<20)
	x.MaxInflight = or(x.MaxInflight, 1)
	x.ApplyTimeout = or(x.ApplyTimeout, 5*time.Second)
	if x.Clock == nil {
		x.Clock = failpointClock()
	}
	return x, nil
}

func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// raftConfig is hashicorp/raft's configuration for c.
func (c *Config) raftConfig() *hraft.Config {
	rc := hraft.DefaultConfig()
	rc.LocalID = hraft.ServerID(c.ID)
	rc.HeartbeatTimeout = c.Timing.Heartbeat
	rc.ElectionTimeout = c.Timing.Election
	rc.LeaderLeaseTimeout = c.Timing.LeaderLease
	rc.CommitTimeout = c.Timing.Commit
	rc.SnapshotThreshold = c.SnapshotThreshold
	rc.TrailingLogs = c.TrailingLogs
	rc.SnapshotInterval = c.SnapshotInterval
	rc.Logger = newHCLogger(c.Logger)
	rc.NoLegacyTelemetry = true
	return rc
}
