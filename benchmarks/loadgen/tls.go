package loadgen

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// TLSOptions says how the generator connects over TLS: whom it trusts and,
// for mutual TLS, which certificate it presents. The zero value (with
// Enable) trusts the system's roots.
type TLSOptions struct {
	Enable     bool   // connect over TLS at all
	CAFile     string // PEM roots to verify the server with (default: the system's)
	Insecure   bool   // do not verify the server's certificate (test setups only)
	CertFile   string // client certificate (PEM) for mutual TLS ...
	KeyFile    string // ... and its key; both or neither
	ServerName string // name to verify (default: the host of the address)
}

// NewTLSConfig builds the client TLS config for o; nil when TLS is off.
// Session resumption is off (no cache), so every connection pays a full
// handshake, as a fleet of fresh clients would.
func NewTLSConfig(o TLSOptions) (*tls.Config, error) {
	if !o.Enable {
		if o.CAFile != "" || o.Insecure || o.CertFile != "" || o.KeyFile != "" || o.ServerName != "" {
			return nil, errors.New("loadgen: TLS options given without --tls")
		}
		return nil, nil
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: o.Insecure, ServerName: o.ServerName}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("loadgen: TLS CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("loadgen: TLS CA: no PEM certificate in %s", o.CAFile)
		}
		tc.RootCAs = pool
	}
	if (o.CertFile == "") != (o.KeyFile == "") {
		return nil, errors.New("loadgen: mutual TLS needs both a certificate and a key")
	}
	if o.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("loadgen: TLS client certificate: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}
