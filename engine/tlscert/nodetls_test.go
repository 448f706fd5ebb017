package tlscert

import (
	"crypto/tls"
	"os"
	"testing"

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
	require.False(t, enginetest.TLSRefused(t, addr, oldPeer.ClientConfig()))
	require.True(t, enginetest.TLSRefused(t, addr, newPeer.ClientConfig()))

	// A broken CA file: the reload fails, the old files stay in use.
	require.NoError(t, os.WriteFile(caFile, []byte("not a certificate"), 0o600))
	require.Error(t, srv.Reload())
	assert.False(t, enginetest.TLSRefused(t, addr, oldPeer.ClientConfig()), "a failed reload keeps the old CA")

	// Rotate: the node's files now hold the new CA's pair and certificate.
	newCert, newKey, _ := newCA.Issue(t, "n1-renewed")
	for dst, src := range map[string]string{cert: newCert, key: newKey, caFile: newCA.CAFile} {
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(dst, b, 0o600))
	}
	require.NoError(t, srv.Reload())
	assert.True(t, enginetest.TLSRefused(t, addr, oldPeer.ClientConfig()), "the old CA is no longer trusted")
	assert.False(t, enginetest.TLSRefused(t, addr, newPeer.ClientConfig()), "the new CA is")
	leaf, err := srv.Leaf()
	require.NoError(t, err)
	assert.Equal(t, "n1-renewed", leaf.Subject.CommonName, "the new certificate is presented")
	// And as a client: the renewed node is trusted by a peer of the new CA.
	c, err := tls.Dial("tcp", addr, srv.ClientConfig())
	require.NoError(t, err)
	require.Equal(t, "n1-renewed", c.ConnectionState().PeerCertificates[0].Subject.CommonName)
	_ = c.Close()
}
