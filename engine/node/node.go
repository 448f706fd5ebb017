package node

import (
	"context"
	"errors"
	"net"
	"sync"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine/tlscert"
	"github.com/stalkd/stalkd/jobs"
)

// Node is a running server: a single server (an engine serving a queue,
// with its journal) or a cluster member (a client front, a raft node and
// the engine of its leadership terms), with its admin port. Start makes
// one; Stop ends it.
//
// Concurrency: every method is safe for concurrent use. Stop runs once;
// Drain and Reload may be called at any time before it.
type Node struct {
	cfg      Config
	root     zerolog.Logger // Config.Logger: no component
	log      zerolog.Logger // the node's own lines: component cmd, or cluster for a member
	certs    *tlscert.CertFiles
	policies *policyFile // nil: no Config.PolicyFile
	adm      *adminServer

	single *single // a single server; nil for a member
	member *member // a cluster member; nil for a single server

	stopOnce sync.Once
	stopErr  error
}

// Start validates cfg and starts the node it describes: it loads the TLS
// files and the policy file, binds the client ports, runs Config.AfterBind,
// opens the journal (or the raft node), applies the policy file and
// serves, then starts the admin port. It returns once every port accepts
// connections. ctx bounds the start-up only. An error is a *ConfigError,
// one of the kinds ErrBind and ErrClusterDir, or what failed as it is;
// nothing is left running.
func Start(ctx context.Context, cfg Config) (*Node, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, root: cfg.Logger, log: component(cfg.Logger, "cmd")}
	var err error
	if n.policies, err = openPolicyFile(&n.cfg); err != nil {
		return nil, err
	}
	tlsConfig, certs, err := loadClientTLS(&n.cfg)
	if err != nil {
		return nil, err
	}
	n.certs = certs
	if cfg.Cluster.ID != "" {
		n.log = component(cfg.Logger, "cluster")
		err = n.startMember(ctx, tlsConfig)
	} else {
		err = n.startSingle(ctx, tlsConfig)
	}
	if err != nil {
		return nil, err
	}
	return n, nil
}

// component returns root with the component field set: every line names
// its part exactly once.
func component(root zerolog.Logger, name string) zerolog.Logger {
	return root.With().Str("component", name).Logger()
}

// Reloads reports whether Reload has anything to read: TLS certificate
// files, node TLS files or a policy file. The daemon obeys SIGHUP only
// then (otherwise the signal keeps its default action, as the
// reference's).
func (c Config) Reloads() bool {
	return c.TLS.Cert != "" || c.Cluster.TLS.given() || c.PolicyFile != ""
}

// Reload reads the TLS certificate files, the node TLS files and the
// policy file again (the daemon's SIGHUP). What fails to load is logged
// and keeps what is in use; a good policy file is applied as at start (in
// a cluster, forwarded to the leader). It returns what failed, joined.
func (n *Node) Reload() error {
	var errs []error
	if n.certs != nil {
		errs = append(errs, reloadCerts(n.certs, component(n.root, "tls")))
	}
	if m := n.member; m != nil {
		errs = append(errs, reloadNodeTLS(m.nodeTLS, component(n.root, "tls")))
		if n.policies != nil {
			errs = append(errs, reloadPolicyFile(n.policies, m.raft.ForwardReplacePolicies, n.log))
		}
	} else if n.policies != nil {
		errs = append(errs, reloadPolicyFile(n.policies, queueReplace(n.single.q), n.log))
	}
	return errors.Join(errs...)
}

// Drain turns drain mode on: puts are refused (DRAINING) from now on. A
// cluster member's drain mode applies to the queues it leads, now and
// later: drain every node to drain the cluster. It logs that it did.
func (n *Node) Drain() {
	if n.member != nil {
		n.member.ls.drain()
		n.log.Info().Msg("drain mode: new jobs are refused from now on, while this node leads")
		return
	}
	n.single.q.Jobs().SetDraining(true)
	n.log.Info().Msg("drain mode: new jobs are refused from now on")
}

// Stop stops the node gracefully: the admin port reports not ready, the
// client ports stop accepting, what is in flight is answered (bounded by
// ctx), then the admin port, the queue's timers and the journal (a final
// sync) or the raft node close. A queue given in Config.Queue stays open.
// It returns the first failure that loses something (an unsynced journal),
// and runs once; later calls return the same.
func (n *Node) Stop(ctx context.Context) error {
	n.stopOnce.Do(func() {
		if n.member != nil {
			n.stopErr = n.stopMember(ctx)
		} else {
			n.stopErr = n.stopSingle(ctx)
		}
	})
	return n.stopErr
}

// Addr is the client port's address (the plain listener's, else the TLS
// one's).
func (n *Node) Addr() net.Addr {
	if n.member != nil {
		return n.member.fronts[0].Addr()
	}
	return n.single.srv.Addr()
}

// TLSAddr is the TLS client port's address, nil without one.
func (n *Node) TLSAddr() net.Addr {
	if m := n.member; m != nil {
		if m.tlsFront == nil {
			return nil
		}
		return m.tlsFront.Addr()
	}
	return n.single.srv.TLSAddr()
}

// AdminAddr is the admin port's address, nil without one.
func (n *Node) AdminAddr() net.Addr {
	if n.adm == nil {
		return nil
	}
	return n.adm.srv.Addr()
}

// Queue is the queue this node serves: a single server's, or the one a
// cluster member serves while it leads (nil between its terms and on a
// follower: it changes with each term).
func (n *Node) Queue() *jobs.Queue {
	if n.member != nil {
		return n.member.ls.queue()
	}
	return n.single.q.Jobs()
}

// Done is closed when a single server's protocol server has stopped, by
// Stop or on its own (Err says why). A cluster member's is never closed:
// its client front outlives any engine.
func (n *Node) Done() <-chan struct{} {
	if n.member != nil {
		return nil
	}
	return n.single.srv.Done()
}

// Err is why the protocol server stopped on its own (after Done), nil
// otherwise.
func (n *Node) Err() error {
	if n.member != nil {
		return nil
	}
	return n.single.srv.Err()
}
