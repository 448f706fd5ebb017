package main

import (
	"errors"
	"net"
	"strings"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/node"
	"github.com/stalkd/stalkd/wal"
	"github.com/stalkd/stalkd/wal/raft"
)

// The command line becomes a node.Config (package engine/node composes the
// server); the rules of what goes together are node.Config.Validate's,
// checked while the command line is parsed, its words made ours by
// flagName.

// flagNames are the flags of node.Config's fields, for node's messages.
var flagNames = map[string]string{
	"Engine.Addr":      "-l",
	"Engine.TLSAddr":   "--tls",
	"TLS.Cert":         "--tls-cert",
	"TLS.Key":          "--tls-key",
	"TLS.ClientCA":     "--tls-client-ca",
	"Journal.Dir":      "-b",
	"PolicyFile":       "--policies",
	"Admin.Addr":       "--admin",
	"Cluster.ID":       "--raft-id",
	"Cluster.Addr":     "--raft-addr",
	"Cluster.Peers":    "--raft-peers",
	"Cluster.Timeout":  "--raft-timeout",
	"Cluster.TLS.Cert": "--raft-tls-cert",
	"Cluster.TLS.Key":  "--raft-tls-key",
	"Cluster.TLS.CA":   "--raft-tls-ca",
}

// flagName is node.Config.Names: the flag of a field.
func flagName(field string) string {
	if f, ok := flagNames[field]; ok {
		return f
	}
	return field
}

// plainOff, as -l, turns the plain listener off (with --tls).
const plainOff = "none"

// config is the node.Config of the command line. What it reads at run
// time comes in as arguments: the token file's tokens, an inherited
// listener, the connection cap, the -u hook; the policy file is named, and
// the node reads it.
func (o options) config() node.Config {
	peers, _ := raft.ParsePeers(o.cluster.Peers) // checked by check
	c := node.Config{
		Engine: engine.Config{
			Addr:        listenAddr(o),
			MaxJobSize:  maxJobSize(o.maxJob),
			IdleTimeout: o.net.idleTimeout,
			TLSAddr:     o.tls.addr,
		},
		TLS:     node.TLSFiles{Cert: o.tls.cert, Key: o.tls.key, ClientCA: o.tls.clientCA},
		Journal: o.journal,
		Admin:   node.Admin{Addr: o.admin.addr, MetricsMaxTubes: o.admin.maxTubes},
		Cluster: node.Cluster{ID: o.cluster.ID, Addr: o.cluster.Addr, Peers: peers,
			Timeout: o.cluster.Timeout, TLS: o.cluster.TLS},
		Names: flagName,
	}
	if c.Journal.SegmentSize == 0 { // -s 0: the smallest segments, not the node's default
		c.Journal.SegmentSize = wal.MinSegmentSize
	}
	if o.policies != nil {
		c.PolicyFile = o.policies.path
	}
	return c
}

// check applies node's rules to the parsed command line: a usage error
// naming the flags.
func (o options) check() error {
	var ce *node.ConfigError
	if err := o.config().Validate(); errors.As(err, &ce) {
		return usageError(ce.Error())
	} else if err != nil {
		return err
	}
	if _, err := raft.ParsePeers(o.cluster.Peers); err != nil {
		return usageError(err.Error())
	}
	return nil
}

// listenAddr joins -l and -p into the engine's address.
func listenAddr(o options) string {
	if o.addr == plainOff {
		return engine.NoPlainListener
	}
	if strings.HasPrefix(o.addr, "unix:") {
		return o.addr
	}
	return net.JoinHostPort(o.addr, o.port)
}

// maxJobSize converts -z to the engine's setting, where 0 means the default.
func maxJobSize(z uint64) uint32 {
	if z == 0 {
		return engine.MaxJobSizeZero
	}
	return uint32(z)
}
