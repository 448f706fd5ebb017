package main

import (
	"crypto/tls"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/tlscert"
	"github.com/stalkd/stalkd/wal/raft"
)

// nodeTLSFlags are --raft-tls-cert, --raft-tls-key and --raft-tls-ca: the
// mutual TLS of a cluster member's node traffic (tlscert.NodeTLS).
type nodeTLSFlags struct {
	Cert, Key, CA string
}

const nodeTLSUsage = ` --raft-tls-cert FILE, --raft-tls-key FILE, --raft-tls-ca FILE
          node-to-node mutual TLS (1.3): the raft port and the leader's
          node port require a peer certificate signed by the CA in FILE
          (any certificate it signed is a node: no host name is checked);
          this node presents the PEM certificate and key. All three or
          none (then node traffic is plain TCP). Reloaded on SIGHUP
`

func init() {
	addStringFlags(map[string]func(o *options) *string{
		"raft-tls-cert": func(o *options) *string { return &o.cluster.TLS.Cert },
		"raft-tls-key":  func(o *options) *string { return &o.cluster.TLS.Key },
		"raft-tls-ca":   func(o *options) *string { return &o.cluster.TLS.CA },
	})
}

// given reports whether any of the flags is set.
func (f nodeTLSFlags) given() bool { return f.Cert != "" || f.Key != "" || f.CA != "" }

// check wants all three flags or none, and --raft-id with them.
func (f nodeTLSFlags) check(clusterMode bool) error {
	if !f.given() {
		return nil
	}
	if !clusterMode {
		return usageError("--raft-tls-cert, --raft-tls-key and --raft-tls-ca need --raft-id")
	}
	for _, m := range []struct{ v, name string }{
		{f.Cert, "--raft-tls-cert"}, {f.Key, "--raft-tls-key"}, {f.CA, "--raft-tls-ca"},
	} {
		if m.v == "" {
			return usageError("node TLS needs all of --raft-tls-cert, --raft-tls-key and --raft-tls-ca: " + m.name + " is missing")
		}
	}
	return nil
}

// load reads the node certificate, key and CA; nil (and a warning) without
// the flags.
func (f nodeTLSFlags) load(log zerolog.Logger) (*tlscert.NodeTLS, error) {
	if !f.given() {
		log.Warn().Msg("node traffic is unencrypted: raft and the carried client connections run over plain TCP " +
			"(use --raft-tls-cert, --raft-tls-key and --raft-tls-ca)")
		return nil, nil
	}
	n, err := tlscert.LoadNodeTLS(f.Cert, f.Key, f.CA)
	if err != nil {
		return nil, err
	}
	ev := log.Info()
	if leaf, err := n.Leaf(); err == nil {
		ev = ev.Str("subject", leaf.Subject.String()).Time("not_after", leaf.NotAfter)
	}
	ev.Msg("node traffic inside mutual TLS")
	return n, nil
}

// raftTLS is n for the raft transport (nil: plain TCP).
func raftTLS(n *tlscert.NodeTLS) *raft.NodeTLS {
	if n == nil {
		return nil
	}
	return &raft.NodeTLS{Server: n.ServerConfig(), Client: n.ClientConfig()}
}

// frontTLS is n for the front's dials to the leader (nil: plain TCP).
func frontTLS(n *tlscert.NodeTLS) *tls.Config {
	if n == nil {
		return nil
	}
	return n.ClientConfig()
}

// leaderTLS sets the leader's engine to serve its node port inside n
// (unchanged without n).
func leaderTLS(cfg *engine.Config, n *tlscert.NodeTLS) {
	if n == nil {
		return
	}
	cfg.TLSAddr, cfg.Addr, cfg.TLSConfig = cfg.Addr, engine.NoPlainListener, n.ServerConfig()
}

// reloadNodeTLS reads the node certificate, key and CA again (SIGHUP):
// later handshakes, raft's and the front's, use them; on error the old
// ones stay.
func reloadNodeTLS(n *tlscert.NodeTLS, log zerolog.Logger) {
	if n == nil {
		return
	}
	if err := n.Reload(); err != nil {
		log.Error().Str("component", "tls").Err(err).Msg("keeping the node certificate and CA in use")
		return
	}
	ev := log.Info().Str("component", "tls")
	if leaf, err := n.Leaf(); err == nil {
		ev = ev.Str("subject", leaf.Subject.String()).Time("not_after", leaf.NotAfter)
	}
	ev.Msg("reloaded the node certificate and CA")
}
