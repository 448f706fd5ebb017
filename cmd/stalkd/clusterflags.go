package main

import (
	"time"

	"github.com/stalkd/stalkd/engine/node"
)

// clusterFlags are --raft-id, --raft-addr, --raft-peers, --raft-timeout
// and the node TLS flags; with --raft-id the server is a cluster member
// (node.Cluster; see package wal/raft).
type clusterFlags struct {
	ID, Addr, Peers string
	// Timeout is --raft-timeout: raft's heartbeat and election timeouts
	// (the leader lease is half); 0 means raft.DefaultTiming's.
	Timeout time.Duration
	TLS     nodeTLSFlags
}

// nodeTLSFlags are --raft-tls-cert, --raft-tls-key and --raft-tls-ca: the
// mutual TLS of a cluster member's node traffic.
type nodeTLSFlags = node.NodeTLSFiles

const clusterUsage = ` --raft-id ID
          cluster mode: this node's id in a replicated cluster (needs -b
          and --raft-addr)
 --raft-addr HOST:PORT
          this node's raft address: bound, and the one its peers use
 --raft-timeout DURATION
          raft's heartbeat and election timeout (default 300ms, for a LAN
          and cores of its own); a leader steps down when it has not heard
          from a majority for half of it. Raise it on loaded or shared
          machines: failover takes about 2-4 times this value
 --raft-peers ID=HOST:PORT,...
          the initial voters; a node with no state under -b bootstraps the
          cluster with them unless another peer is in a running cluster
          (then it waits to be added: stalkctl add-voter); a node with
          state ignores them
`

const nodeTLSUsage = ` --raft-tls-cert FILE, --raft-tls-key FILE, --raft-tls-ca FILE
          node-to-node mutual TLS (1.3): the raft port and the leader's
          node port require a peer certificate signed by the CA in FILE
          (any certificate it signed is a node: no host name is checked);
          this node presents the PEM certificate and key. All three or
          none (then node traffic is plain TCP). Reloaded on SIGHUP
`

func init() {
	addStringFlags(map[string]func(o *options) *string{
		"raft-id":       func(o *options) *string { return &o.cluster.ID },
		"raft-addr":     func(o *options) *string { return &o.cluster.Addr },
		"raft-peers":    func(o *options) *string { return &o.cluster.Peers },
		"raft-tls-cert": func(o *options) *string { return &o.cluster.TLS.Cert },
		"raft-tls-key":  func(o *options) *string { return &o.cluster.TLS.Key },
		"raft-tls-ca":   func(o *options) *string { return &o.cluster.TLS.CA },
	})
	longFlags["raft-timeout"] = func(o *options, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 10*time.Millisecond {
			return usageError("invalid --raft-timeout (a duration of at least 10ms): " + v)
		}
		o.cluster.Timeout = d
		return nil
	}
}
