package main

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// TestTLSFlags: a TLS-only stalkd with mutual TLS serves a client with a
// certificate, refuses one without, and on SIGHUP presents the renewed
// certificate to new connections while the old one keeps working.
func TestTLSFlags(t *testing.T) {
	ca := enginetest.NewCA(t, "stalkd test")
	certFile, keyFile, _ := ca.Issue(t, "server")
	_, _, client := ca.Issue(t, "client")
	proc := startSelf(t, "-l", "none", "--tls", "127.0.0.1:0",
		"--tls-cert", certFile, "--tls-key", keyFile, "--tls-client-ca", ca.CAFile)
	addr := proc.Addr() // the TLS one: there is no other
	dialTLS := func(certs []tls.Certificate) (*tls.Conn, error) {
		c, err := tls.DialWithDialer(&net.Dialer{Timeout: waitLong}, "tcp", addr,
			&tls.Config{RootCAs: ca.Pool, Certificates: certs})
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

	ca.Issue(t, "server") // renewed in place
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
