package tlscert

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
)

// NodeTLS is the mutual TLS of a cluster's node-to-node traffic (stalkd's
// --raft-tls-cert, --raft-tls-key and --raft-tls-ca): the raft transport,
// and the connections a node's client front opens to the leader's engine.
// Every node presents its certificate and requires the peer's, on accept
// and on dial; TLS 1.3 only.
//
// What is verified: the peer's chain against the CA pool (the cluster's
// own CA), with the key usage of its side (a server's certificate for
// serverAuth, a client's for clientAuth; a certificate without extended
// key usages passes both). No host name or IP address is checked: a node's
// addresses change (add-voter, a moved host) and are not what raft trusts,
// so any certificate the CA signed is a node. Use a CA that signs nothing
// but this cluster's nodes.
//
// Reload reads the certificate, key and CA file again (SIGHUP): later
// handshakes use them, open connections are left alone. The tls.Configs
// ServerConfig and ClientConfig return read the current files through
// callbacks, so they are built once and never change.
//
// Concurrency: safe for concurrent use; Reload may run during handshakes.
type NodeTLS struct {
	certs  *CertFiles
	caFile string
	pool   atomic.Pointer[x509.CertPool]
}

// LoadNodeTLS reads a node's PEM certificate (chain), its key and the CA
// file that signs every node.
func LoadNodeTLS(certFile, keyFile, caFile string) (*NodeTLS, error) {
	n := &NodeTLS{certs: &CertFiles{certFile: certFile, keyFile: keyFile}, caFile: caFile}
	if err := n.Reload(); err != nil {
		return nil, err
	}
	return n, nil
}

// Reload reads the three files again. All or nothing: on error the
// certificate, key and CA in use stay.
func (n *NodeTLS) Reload() error {
	pool, err := readCAPool(n.caFile, "node TLS CA")
	if err != nil {
		return err
	}
	pair, err := tls.LoadX509KeyPair(n.certs.certFile, n.certs.keyFile)
	if err != nil {
		return fmt.Errorf("engine: node TLS: loading %s and %s: %w", n.certs.certFile, n.certs.keyFile, err)
	}
	n.certs.cur.Store(&pair)
	n.pool.Store(pool)
	return nil
}

// readCAPool reads a PEM file of CA certificates; what names it in errors
// ("client CA", "node TLS CA").
func readCAPool(file, what string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("engine: %s: %w", what, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("engine: " + what + ": no PEM certificate in " + file)
	}
	return pool, nil
}

// Leaf returns this node's certificate in use, parsed.
func (n *NodeTLS) Leaf() (*x509.Certificate, error) { return n.certs.Leaf() }

// ServerConfig is the configuration of a node's listeners (the raft port,
// the leader's engine port): TLS 1.3, a client certificate required and
// verified against the current CA.
func (n *NodeTLS) ServerConfig() *tls.Config {
	return &tls.Config{
		MinVersion:       tls.VersionTLS13,
		GetCertificate:   n.certs.GetCertificate,
		ClientAuth:       tls.RequireAnyClientCert, // verified below, against the pool in use
		VerifyConnection: n.verifier(x509.ExtKeyUsageClientAuth),
	}
}

// ClientConfig is the configuration of a node's dials: TLS 1.3, this
// node's certificate, and the server's chain verified against the current
// CA (not its name: see NodeTLS).
func (n *NodeTLS) ClientConfig() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS13,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			return n.certs.cur.Load(), nil
		},
		// The chain is verified in VerifyConnection, which runs whatever
		// InsecureSkipVerify says; only the name check is skipped.
		InsecureSkipVerify: true,
		VerifyConnection:   n.verifier(x509.ExtKeyUsageServerAuth),
	}
}

// ErrNodeCertificate is why a node refuses a peer's handshake.
var ErrNodeCertificate = errors.New("engine: node TLS: the peer's certificate is not signed by the cluster's CA")

// verifier checks the peer's chain against the pool in use.
func (n *NodeTLS) verifier(usage x509.ExtKeyUsage) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return fmt.Errorf("%w: none presented", ErrNodeCertificate)
		}
		opts := x509.VerifyOptions{
			Roots:         n.pool.Load(),
			Intermediates: x509.NewCertPool(),
			KeyUsages:     []x509.ExtKeyUsage{usage},
		}
		for _, c := range cs.PeerCertificates[1:] {
			opts.Intermediates.AddCert(c)
		}
		if _, err := cs.PeerCertificates[0].Verify(opts); err != nil {
			return fmt.Errorf("%w: %w", ErrNodeCertificate, err)
		}
		return nil
	}
}
