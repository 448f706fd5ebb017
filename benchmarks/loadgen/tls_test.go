package loadgen

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// testPKI is a CA with a server certificate for 127.0.0.1 and a client
// certificate, written as PEM files.
type testPKI struct {
	caFile, certFile, keyFile string // CA; client cert and key
	pool                      *x509.CertPool
	server                    tls.Certificate
}

func newTestPKI(t *testing.T) testPKI {
	t.Helper()
	ca := enginetest.NewCA(t, "bench test") // the test kit's: one CA for every test
	_, _, server := ca.Issue(t, "server")
	certFile, keyFile, _ := ca.Issue(t, "client")
	return testPKI{caFile: ca.CAFile, certFile: certFile, keyFile: keyFile, pool: ca.Pool, server: server}
}

// tlsProxy terminates TLS on a loopback port and relays each connection to
// backend in plain TCP, as a TLS-terminating proxy in front of a server
// would. It counts the handshakes that succeeded.
func tlsProxy(t *testing.T, p testPKI, backend string, requireClientCert bool) (addr string, handshakes *atomic.Int64) {
	t.Helper()
	cfg := &tls.Config{Certificates: []tls.Certificate{p.server}}
	if requireClientCert {
		cfg.ClientAuth, cfg.ClientCAs = tls.RequireAndVerifyClientCert, p.pool
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	handshakes = new(atomic.Int64)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if err := c.(*tls.Conn).Handshake(); err != nil {
					return
				}
				handshakes.Add(1)
				up, err := net.Dial("tcp", backend)
				if err != nil {
					return
				}
				defer up.Close()
				go func() { io.Copy(up, c); up.(*net.TCPConn).CloseWrite() }()
				io.Copy(c, up)
			}()
		}
	}()
	return ln.Addr().String(), handshakes
}

func TestNewTLSConfig(t *testing.T) {
	p := newTestPKI(t)
	tc, err := NewTLSConfig(TLSOptions{})
	assert.NoError(t, err)
	assert.Nil(t, tc, "TLS off")
	_, err = NewTLSConfig(TLSOptions{CAFile: p.caFile})
	assert.ErrorContains(t, err, "without --tls")
	_, err = NewTLSConfig(TLSOptions{Enable: true, CertFile: p.certFile})
	assert.ErrorContains(t, err, "both a certificate and a key")
	_, err = NewTLSConfig(TLSOptions{Enable: true, CAFile: p.keyFile})
	assert.ErrorContains(t, err, "no PEM certificate")
	tc, err = NewTLSConfig(TLSOptions{Enable: true, CAFile: p.caFile, CertFile: p.certFile, KeyFile: p.keyFile})
	require.NoError(t, err)
	assert.NotNil(t, tc.RootCAs)
	assert.Len(t, tc.Certificates, 1)
}

// TestRunOverTLS drives the reference beanstalkd through a TLS-terminating
// proxy: verified, insecure and mutual TLS work; plain TCP and a client
// without its certificate do not.
func TestRunOverTLS(t *testing.T) {
	srv := startReference(t)
	p := newTestPKI(t)
	addr, handshakes := tlsProxy(t, p, srv.Addr, false)

	verified, err := NewTLSConfig(TLSOptions{Enable: true, CAFile: p.caFile})
	require.NoError(t, err)
	for _, sc := range []string{ScenarioPut, ScenarioReserve, ScenarioE2E} {
		cfg := testConfig(addr, sc)
		cfg.Conns, cfg.Jobs, cfg.TLS = 2, 300, verified
		r := runOK(t, cfg)
		assert.Equal(t, int64(300), r.Ops, sc)
		assert.True(t, r.TLS)
	}
	assert.Greater(t, handshakes.Load(), int64(6), "the runs' connections went through TLS")

	insecure, err := NewTLSConfig(TLSOptions{Enable: true, Insecure: true})
	require.NoError(t, err)
	cfg := testConfig(addr, ScenarioPut)
	cfg.Jobs, cfg.TLS = 100, insecure
	runOK(t, cfg)

	// The system roots do not know the test CA.
	untrusted, err := NewTLSConfig(TLSOptions{Enable: true})
	require.NoError(t, err)
	cfg.TLS = untrusted
	_, err = Run(cfg)
	assert.ErrorContains(t, err, "certificate")

	// Plain TCP to a TLS port gets no beanstalk reply.
	cfg.TLS, cfg.Timeout = nil, 3*time.Second
	if r, err := Run(cfg); err == nil {
		assert.NotZero(t, r.Errors+r.Left, "plain TCP to a TLS listener cannot succeed")
	}

	mAddr, _ := tlsProxy(t, p, srv.Addr, true)
	mutual, err := NewTLSConfig(TLSOptions{Enable: true, CAFile: p.caFile, CertFile: p.certFile, KeyFile: p.keyFile})
	require.NoError(t, err)
	cfg = testConfig(mAddr, ScenarioPut)
	cfg.Jobs, cfg.TLS = 100, mutual
	assert.Equal(t, int64(100), runOK(t, cfg).Ops)
	cfg.TLS, cfg.Timeout = verified, 5*time.Second // no client certificate
	r, err := Run(cfg)
	assert.True(t, err != nil || r.Errors > 0, "mTLS without a client certificate must fail")
}

// TestConnectScenario: the connect loop opens one connection per operation,
// plaintext and over TLS (one handshake each).
func TestConnectScenario(t *testing.T) {
	srv := startReference(t)
	cfg := testConfig(srv.Addr, ScenarioConnect)
	cfg.Conns, cfg.Jobs, cfg.PID = 2, 50, srv.PID
	r := runOK(t, cfg)
	assert.Equal(t, int64(50), r.Ops)
	assert.Positive(t, r.Latency.P50)
	// The reference counted one connection per operation, besides
	// StartServer's readiness probe and this stats connection.
	assert.Equal(t, int64(50), serverStat(t, srv.Addr, "total-connections")-2)

	p := newTestPKI(t)
	addr, handshakes := tlsProxy(t, p, srv.Addr, false)
	tc, err := NewTLSConfig(TLSOptions{Enable: true, CAFile: p.caFile})
	require.NoError(t, err)
	cfg = testConfig(addr, ScenarioConnect)
	cfg.Conns, cfg.Jobs, cfg.TLS = 2, 40, tc
	r = runOK(t, cfg)
	assert.Equal(t, int64(40), r.Ops)
	assert.True(t, r.TLS)
	assert.Equal(t, int64(40), handshakes.Load(), "one full handshake per operation")
}
