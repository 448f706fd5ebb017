package engine

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

func loadNode(t *testing.T, ca *enginetest.CA, name string) *NodeTLS {
	cert, key, _ := ca.Issue(t, name)
	n, err := LoadNodeTLS(cert, key, ca.CAFile)
	require.NoError(t, err)
	return n
}

// refused reports whether a node listener refused the client side c:
// its handshake or its first exchange fails (in TLS 1.3 a client learns
// that its certificate was refused on its first read).
func refused(t *testing.T, addr string, cfg *tls.Config) bool {
	d := &net.Dialer{Timeout: 10 * time.Second}
	c, err := tls.DialWithDialer(d, "tcp", addr, cfg)
	if err != nil {
		return true
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, "list-tube-used\r\n"); err != nil {
		return true
	}
	_, err = c.Read(make([]byte, 64))
	return err != nil
}

// TestNodeTLSFront: the leader's engine serves the node port inside mutual
// TLS; a front that holds a certificate of the cluster's CA carries its
// clients there (half-close included). A plain TCP peer, a peer with a
// certificate of another CA, and one with none are refused, and a front
// with another CA's certificate carries nothing.
func TestNodeTLSFront(t *testing.T) {
	ca := enginetest.NewCA(t, "cluster")
	leaderTLS, frontTLS := loadNode(t, ca, "n1"), loadNode(t, ca, "n2")
	leader := startLeader(t, func(c *Config) {
		c.Addr, c.TLSAddr, c.TLSConfig = NoPlainListener, "127.0.0.1:0", leaderTLS.ServerConfig()
	})
	nodeAddr := leader.Addr().String()
	require.Equal(t, leader.TLSAddr().String(), nodeAddr, "the node port is the TLS one")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f := StartFront(FrontConfig{Listener: ln, Leader: fixedLeader(nodeAddr), TLS: frontTLS.ClientConfig(),
		Logger: zerolog.New(zerolog.NewTestWriter(t))})
	t.Cleanup(func() { _ = f.Stop(context.Background()) })
	enginetest.Dial(t, f.Addr().String()).Do("use t\r\nput 1 0 60 5\r\nhello\r\nwatch t\r\nreserve-with-timeout 0\r\n",
		"USING t\r\nINSERTED 1\r\nWATCHING 2\r\nRESERVED 1 5\r\nhello\r\n")
	c := enginetest.Dial(t, f.Addr().String())
	c.Send("peek 1\r\n")
	c.CloseWrite()
	c.Expect("FOUND 1 5\r\nhello\r\n")
	c.ExpectEOF()

	// The node port itself.
	plain := enginetest.Dial(t, nodeAddr)
	plain.Send("list-tube-used\r\n")
	plain.ExpectClosed()
	other := loadNode(t, enginetest.NewCA(t, "other"), "rogue")
	assert.True(t, refused(t, nodeAddr, other.ClientConfig()), "a certificate of another CA")
	anon := frontTLS.ClientConfig()
	anon.GetClientCertificate = nil
	assert.True(t, refused(t, nodeAddr, anon), "no certificate")
	assert.False(t, refused(t, nodeAddr, frontTLS.ClientConfig()), "control: the cluster's certificate")

	// A front whose certificate the leader does not trust carries nothing.
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f2 := StartFront(FrontConfig{Listener: ln2, Leader: fixedLeader(nodeAddr), TLS: other.ClientConfig(),
		Wait: 300 * time.Millisecond, Logger: zerolog.New(zerolog.NewTestWriter(t))})
	t.Cleanup(func() { _ = f2.Stop(context.Background()) })
	rc := enginetest.Dial(t, f2.Addr().String())
	rc.Send("peek 1\r\n")
	assert.Equal(t, "INTERNAL_ERROR", rc.Line(), "nothing reaches the leader without the cluster's certificate")
}

// TestNodeTLSReload: Reload reads the certificate, key and CA again - a
// rotation to a new CA takes effect for new handshakes - and a reload that
// fails keeps everything in use.
func TestNodeTLSReload(t *testing.T) {
	oldCA, newCA := enginetest.NewCA(t, "old"), enginetest.NewCA(t, "new")
	cert, key, _ := oldCA.Issue(t, "n1")
	caFile := oldCA.CAFile
	srv, err := LoadNodeTLS(cert, key, caFile)
	require.NoError(t, err)
	ln, err := tls.Listen("tcp", "127.0.0.1:0", srv.ServerConfig())
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() { // an echo server: one line back per connection
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				b := make([]byte, 64)
				n, err := c.Read(b)
				if err == nil {
					_, _ = c.Write(b[:n])
				}
			}()
		}
	}()
	addr := ln.Addr().String()
	oldPeer, newPeer := loadNode(t, oldCA, "n2"), loadNode(t, newCA, "n2")
	require.False(t, refused(t, addr, oldPeer.ClientConfig()))
	require.True(t, refused(t, addr, newPeer.ClientConfig()))

	// A broken CA file: the reload fails, the old files stay in use.
	require.NoError(t, os.WriteFile(caFile, []byte("not a certificate"), 0o600))
	require.Error(t, srv.Reload())
	assert.False(t, refused(t, addr, oldPeer.ClientConfig()), "a failed reload keeps the old CA")

	// Rotate: the node's files now hold the new CA's pair and certificate.
	newCert, newKey, _ := newCA.Issue(t, "n1-renewed")
	for dst, src := range map[string]string{cert: newCert, key: newKey, caFile: newCA.CAFile} {
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(dst, b, 0o600))
	}
	require.NoError(t, srv.Reload())
	assert.True(t, refused(t, addr, oldPeer.ClientConfig()), "the old CA is no longer trusted")
	assert.False(t, refused(t, addr, newPeer.ClientConfig()), "the new CA is")
	leaf, err := srv.Leaf()
	require.NoError(t, err)
	assert.Equal(t, "n1-renewed", leaf.Subject.CommonName, "the new certificate is presented")
	// And as a client: the renewed node is trusted by a peer of the new CA.
	c, err := tls.Dial("tcp", addr, srv.ClientConfig())
	require.NoError(t, err)
	require.Equal(t, "n1-renewed", c.ConnectionState().PeerCertificates[0].Subject.CommonName)
	_ = c.Close()
}
