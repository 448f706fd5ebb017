package tlscert

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"sync/atomic"
	"time"
)

// HandshakeTimeout bounds a client's TLS handshake, on the engine's TLS
// listener and on a cluster front alike.
const HandshakeTimeout = 10 * time.Second

// CertFiles serves a certificate and key read from files, and reads them
// again on Reload (the daemon calls it on SIGHUP): handshakes after a
// successful Reload present the new pair, connections already open are
// left alone. Safe for concurrent use.
type CertFiles struct {
	certFile, keyFile string
	cur               atomic.Pointer[tls.Certificate]
}

// LoadCertFiles reads a PEM certificate (chain) and its key.
func LoadCertFiles(certFile, keyFile string) (*CertFiles, error) {
	c := &CertFiles{certFile: certFile, keyFile: keyFile}
	if err := c.Reload(); err != nil {
		return nil, err
	}
	return c, nil
}

// Reload reads the files again. On error the pair in use stays.
func (c *CertFiles) Reload() error {
	pair, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		return fmt.Errorf("engine: loading %s and %s: %w", c.certFile, c.keyFile, err)
	}
	c.cur.Store(&pair)
	return nil
}

// GetCertificate is for tls.Config.GetCertificate.
func (c *CertFiles) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return c.cur.Load(), nil
}

// Leaf returns the certificate in use, parsed.
func (c *CertFiles) Leaf() (*x509.Certificate, error) {
	pair := c.cur.Load()
	if pair.Leaf != nil {
		return pair.Leaf, nil
	}
	return x509.ParseCertificate(pair.Certificate[0])
}

// ServerTLSConfig is the TLS configuration of a beanstalk listener: TLS 1.2
// and later, the pair from certs, and, with a client CA file, mutual TLS
// (a client must present a certificate signed by one of its CAs).
func ServerTLSConfig(certs *CertFiles, clientCAFile string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: certs.GetCertificate}
	if clientCAFile == "" {
		return cfg, nil
	}
	pool, err := readCAPool(clientCAFile, "client CA")
	if err != nil {
		return nil, err
	}
	cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	return cfg, nil
}
