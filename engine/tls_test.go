package engine

import (
	"bufio"
	"crypto/tls"
	"io"
	mrand "math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/engine/tlscert"
)

// tlsSetup is a CA, a server certificate in files, and a TLS server.
type tlsSetup struct {
	ca       *enginetest.CA // the test kit's: one CA for every test
	certs    *tlscert.CertFiles
	certFile string
	keyFile  string
	srv      *Server
}

func startTLS(t *testing.T, mutual bool, plain bool, mutate ...func(*Config)) *tlsSetup {
	dir := t.TempDir()
	ts := &tlsSetup{ca: enginetest.NewCA(t, "test"), certFile: filepath.Join(dir, "cert.pem"), keyFile: filepath.Join(dir, "key.pem")}
	ts.writePair(t, "server one")
	var err error
	ts.certs, err = tlscert.LoadCertFiles(ts.certFile, ts.keyFile)
	require.NoError(t, err)
	caFile := ""
	if mutual {
		caFile = ts.ca.CAFile
	}
	cfg, err := tlscert.ServerTLSConfig(ts.certs, caFile)
	require.NoError(t, err)
	ts.srv = startServer(t, func(c *Config) {
		c.TLSAddr, c.TLSConfig = "127.0.0.1:0", cfg
		if !plain {
			c.Addr = NoPlainListener
		}
		for _, m := range mutate {
			m(c)
		}
	})
	return ts
}

func (ts *tlsSetup) writePair(t *testing.T, name string) {
	certFile, keyFile, _ := ts.ca.Issue(t, name)
	for from, to := range map[string]string{certFile: ts.certFile, keyFile: ts.keyFile} {
		b, err := os.ReadFile(from)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(to, b, 0o600))
	}
}

// dialTLS connects with the given client certificates (none: nil).
func (ts *tlsSetup) dialTLS(t *testing.T, certs []tls.Certificate) (*tls.Conn, error) {
	d := &net.Dialer{Timeout: ioTimeout}
	c, err := tls.DialWithDialer(d, "tcp", ts.srv.TLSAddr().String(),
		&tls.Config{RootCAs: ts.ca.Pool, Certificates: certs, MinVersion: tls.VersionTLS12})
	if err == nil {
		t.Cleanup(func() { _ = c.Close() })
	}
	return c, err
}

// TestTLSWithGoBeanstalk: put, reserve and delete over TLS with a real
// client, on the same queue as the plain listener.
func TestTLSWithGoBeanstalk(t *testing.T) {
	ts := startTLS(t, false, true)
	c, err := ts.dialTLS(t, nil)
	require.NoError(t, err)
	bc := beanstalk.NewConn(c)
	id, err := bc.Put([]byte("secret body"), 1, 0, time.Minute)
	require.NoError(t, err)
	dial(t, ts.srv).Do("peek 1\r\n", "FOUND 1 11\r\nsecret body\r\n") // the same queue as plain
	rid, body, err := bc.Reserve(time.Second)
	require.NoError(t, err)
	assert.Equal(t, id, rid)
	assert.Equal(t, "secret body", string(body))
	require.NoError(t, bc.Delete(id))
	_, _, err = bc.Reserve(0)
	assert.ErrorIs(t, err, beanstalk.ErrTimeout)
	assert.Equal(t, uint16(tls.VersionTLS13), c.ConnectionState().Version)
}

// TestTLSOnly: with the plain listener off, the server is reachable over
// TLS only, and pipelined commands are answered before a half-close ends
// the connection.
func TestTLSOnly(t *testing.T) {
	ts := startTLS(t, false, false)
	assert.Equal(t, ts.srv.TLSAddr(), ts.srv.Addr())
	c, err := ts.dialTLS(t, nil)
	require.NoError(t, err)
	_, err = io.WriteString(c, "put 0 0 10 2\r\nhi\r\nreserve-with-timeout 0\r\n")
	require.NoError(t, err)
	require.NoError(t, c.CloseWrite())
	require.NoError(t, c.SetReadDeadline(time.Now().Add(ioTimeout)))
	got, err := io.ReadAll(c)
	require.NoError(t, err)
	assert.Equal(t, "INSERTED 1\r\nRESERVED 1 2\r\nhi\r\n", string(got))
}

// TestMutualTLS: under a client CA, a client certificate from that CA is
// served; none, or one from another CA, is refused.
func TestMutualTLS(t *testing.T) {
	ts := startTLS(t, true, false)
	_, _, good := ts.ca.Issue(t, "worker")
	c, err := ts.dialTLS(t, []tls.Certificate{good})
	require.NoError(t, err)
	enginetest.Wrap(t, c).Do("list-tube-used\r\n", "USING default\r\n")

	_, _, other := enginetest.NewCA(t, "other").Issue(t, "intruder")
	for name, certs := range map[string][]tls.Certificate{"no certificate": nil, "wrong CA": {other}} {
		c, err := ts.dialTLS(t, certs)
		if err == nil { // TLS 1.3: the client learns of the refusal on its first read
			_, _ = io.WriteString(c, "list-tube-used\r\n")
			_ = c.SetReadDeadline(time.Now().Add(ioTimeout))
			_, err = bufio.NewReader(c).ReadString('\n')
		}
		assert.Error(t, err, name)
		assert.NotErrorIs(t, err, os.ErrDeadlineExceeded, name)
	}
	assert.Equal(t, uint64(1), ts.srv.Queue().Stats().Cmds[codec.OpListTubeUsed], "the refused clients ran nothing")
}

// A client certificate verified against the client CA stands in for an
// auth token; a plain connection to the same server still needs one.
func TestMutualTLSNeedsNoToken(t *testing.T) {
	ts := startTLS(t, true, true, func(c *Config) { c.AuthTokens = []string{goodToken} })
	_, _, good := ts.ca.Issue(t, "worker")
	c, err := ts.dialTLS(t, []tls.Certificate{good})
	require.NoError(t, err)
	enginetest.Wrap(t, c).Do("put 0 0 10 1\r\nx\r\n", "INSERTED 1\r\n")

	p := dial(t, ts.srv)
	p.Do("peek 1\r\n", "UNKNOWN_COMMAND\r\n")
	p.Do("auth "+goodToken+"\r\npeek 1\r\n", "AUTHENTICATED\r\nFOUND 1 1\r\nx\r\n")
}

// TestTLSReload: after Reload, new connections get the new certificate;
// a connection opened before keeps working.
func TestTLSReload(t *testing.T) {
	ts := startTLS(t, false, false)
	before, err := ts.dialTLS(t, nil)
	require.NoError(t, err)
	first := before.ConnectionState().PeerCertificates[0].SerialNumber

	ts.writePair(t, "server two")
	require.NoError(t, ts.certs.Reload())
	after, err := ts.dialTLS(t, nil)
	require.NoError(t, err)
	second := after.ConnectionState().PeerCertificates[0]
	assert.NotEqual(t, first, second.SerialNumber)
	assert.Equal(t, "server two", second.Subject.CommonName)

	bc := beanstalk.NewConn(before)
	_, err = bc.Put([]byte("x"), 1, 0, time.Minute)
	require.NoError(t, err, "the connection from before the reload still works")

	require.NoError(t, os.WriteFile(ts.keyFile, []byte("garbage"), 0o600))
	require.Error(t, ts.certs.Reload())
	again, err := ts.dialTLS(t, nil)
	require.NoError(t, err, "a failed reload keeps the pair in use")
	assert.Equal(t, second.SerialNumber, again.ConnectionState().PeerCertificates[0].SerialNumber)
}

// TestTLSGarbage: random bytes before the handshake and random bytes
// inside TLS neither stop nor disturb the server.
func TestTLSGarbage(t *testing.T) {
	ts := startTLS(t, false, false)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := mrand.New(mrand.NewPCG(seed, 1))
	for i := range 20 {
		junk := make([]byte, 1+rng.IntN(4096))
		for j := range junk {
			junk[j] = byte(rng.UintN(256))
		}
		if i%2 == 0 { // not TLS at all
			c, err := net.DialTimeout("tcp", ts.srv.TLSAddr().String(), ioTimeout)
			require.NoError(t, err)
			_, _ = c.Write(junk)
			_ = c.SetReadDeadline(time.Now().Add(ioTimeout))
			_, _ = io.Copy(io.Discard, c) // the server closes it
			_ = c.Close()
			continue
		}
		c, err := ts.dialTLS(t, nil) // garbage commands inside TLS
		require.NoError(t, err)
		_, _ = c.Write(junk)
		_ = c.Close()
	}
	c, err := ts.dialTLS(t, nil)
	require.NoError(t, err)
	bc := beanstalk.NewConn(c)
	_, err = bc.Put([]byte("still here"), 1, 0, time.Minute)
	require.NoError(t, err)
}
