package node

import (
	"crypto/tls"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/tlscert"
	"github.com/stalkd/stalkd/wal/raft"
)

// The TLS of a node: the client listener's certificate (Config.TLS) and a
// cluster member's node-to-node mutual TLS (Config.Cluster.TLS), each
// loaded by Start and read again by Reload. A reload that fails keeps
// what is in use and logs why; new handshakes use what a reload read,
// open connections are left alone.

// loadClientTLS loads Config.TLS into the listener's TLS settings; the
// config as given (nil files) without the files.
func loadClientTLS(c *Config) (*tls.Config, *tlscert.CertFiles, error) {
	if c.TLS.Cert == "" {
		return c.Engine.TLSConfig, nil, nil
	}
	certs, err := tlscert.LoadCertFiles(c.TLS.Cert, c.TLS.Key)
	if err != nil {
		return nil, nil, err
	}
	cfg, err := tlscert.ServerTLSConfig(certs, c.TLS.ClientCA)
	if err != nil {
		return nil, nil, err
	}
	return cfg, certs, nil
}

// reloadCerts reads the certificate and key again.
func reloadCerts(certs *tlscert.CertFiles, log zerolog.Logger) error {
	if err := certs.Reload(); err != nil {
		log.Error().Err(err).Msg("keeping the certificate in use")
		return err
	}
	ev := log.Info()
	if leaf, err := certs.Leaf(); err == nil {
		ev = ev.Str("subject", leaf.Subject.String()).Time("not_after", leaf.NotAfter)
	}
	ev.Msg("reloaded the certificate")
	return nil
}

// loadNodeTLS reads the node certificate, key and CA; nil (and a warning)
// without them.
func loadNodeTLS(c *Config, log zerolog.Logger) (*tlscert.NodeTLS, error) {
	f := c.Cluster.TLS
	if !f.given() {
		log.Warn().Msg(c.say("node traffic is unencrypted: raft and the carried client connections run over plain TCP " +
			"(use {Cluster.TLS.Cert}, {Cluster.TLS.Key} and {Cluster.TLS.CA})"))
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

// reloadNodeTLS reads the node certificate, key and CA again: later
// handshakes, raft's and the front's, use them.
func reloadNodeTLS(n *tlscert.NodeTLS, log zerolog.Logger) error {
	if n == nil {
		return nil
	}
	if err := n.Reload(); err != nil {
		log.Error().Err(err).Msg("keeping the node certificate and CA in use")
		return err
	}
	ev := log.Info()
	if leaf, err := n.Leaf(); err == nil {
		ev = ev.Str("subject", leaf.Subject.String()).Time("not_after", leaf.NotAfter)
	}
	ev.Msg("reloaded the node certificate and CA")
	return nil
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
