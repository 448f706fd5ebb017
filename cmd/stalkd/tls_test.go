package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// pki is a CA made for a test, and the files of what it issued.
type pki struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
	dir  string
	n    int64
}

func newPKI(t *testing.T) *pki {
	p := &pki{dir: t.TempDir(), n: 1}
	var err error
	p.key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &p.key.PublicKey, p.key)
	require.NoError(t, err)
	p.cert, err = x509.ParseCertificate(der)
	require.NoError(t, err)
	p.pool = x509.NewCertPool()
	p.pool.AddCert(p.cert)
	p.write(t, "ca.pem", "CERTIFICATE", der)
	return p
}

func (p *pki) write(t *testing.T, name, typ string, der []byte) string {
	path := filepath.Join(p.dir, name)
	require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
	return path
}

// issue writes a leaf certificate and key named base.crt and base.key.
func (p *pki) issue(t *testing.T, base string, server bool) tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	p.n++
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(p.n), Subject: pkix.Name{CommonName: base},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.cert, &key.PublicKey, p.key)
	require.NoError(t, err)
	kder, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	c := p.write(t, base+".crt", "CERTIFICATE", der)
	k := p.write(t, base+".key", "EC PRIVATE KEY", kder)
	pair, err := tls.LoadX509KeyPair(c, k)
	require.NoError(t, err)
	return pair
}

// TestTLSFlags: a TLS-only stalkd with mutual TLS serves a client with a
// certificate, refuses one without, and on SIGHUP presents the renewed
// certificate to new connections while the old one keeps working.
func TestTLSFlags(t *testing.T) {
	p := newPKI(t)
	p.issue(t, "server", true)
	client := p.issue(t, "client", false)
	proc := startSelf(t, "-l", "none", "--tls", "127.0.0.1:0",
		"--tls-cert", filepath.Join(p.dir, "server.crt"), "--tls-key", filepath.Join(p.dir, "server.key"),
		"--tls-client-ca", filepath.Join(p.dir, "ca.pem"))
	addr := proc.Addr() // the TLS one: there is no other
	dialTLS := func(certs []tls.Certificate) (*tls.Conn, error) {
		c, err := tls.DialWithDialer(&net.Dialer{Timeout: waitLong}, "tcp", addr,
			&tls.Config{RootCAs: p.pool, Certificates: certs})
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { _ = c.Close() })
		return c, nil
	}
	tc, err := dialTLS([]tls.Certificate{client})
	require.NoError(t, err)
	c := enginetest.Wrap(t, tc)
	c.Do("put 0 0 10 1\r\nx\r\n", "INSERTED 1\r\n")
	serial := tc.ConnectionState().PeerCertificates[0].SerialNumber

	if anon, err := dialTLS(nil); err == nil {
		_, _ = io.WriteString(anon, "list-tube-used\r\n")
		_ = anon.SetReadDeadline(time.Now().Add(waitLong))
		_, err = bufio.NewReader(anon).ReadString('\n')
		assert.Error(t, err, "no client certificate: refused")
	}

	p.issue(t, "server", true) // renewed in place
	require.NoError(t, proc.Signal(syscall.SIGHUP))
	require.Eventually(t, func() bool {
		n, err := dialTLS([]tls.Certificate{client})
		return err == nil && n.ConnectionState().PeerCertificates[0].SerialNumber.Cmp(serial) != 0
	}, waitLong, 10*time.Millisecond, "new connections get the renewed certificate")
	c.Do("put 0 0 10 1\r\ny\r\n", "INSERTED 2\r\n")
}

func TestTLSFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"--tls", "127.0.0.1:0"}, exitUsage},
		{[]string{"--tls-cert", "x.crt"}, exitUsage},
		{[]string{"-l", "none"}, exitUsage},
		{[]string{"--tls", "127.0.0.1:0", "--tls-cert", "/no/such.crt", "--tls-key", "/no/such.key"}, exitFailure},
	} {
		cmd, stderr := stalkd(t, tc.args...)
		go func() { _, _ = io.Copy(io.Discard, stderr) }()
		assert.Equal(t, tc.code, exitCode(t, cmd), tc.args)
	}
}
