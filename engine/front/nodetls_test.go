package front

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/engine/tlscert"
)

func loadNode(t *testing.T, ca *enginetest.CA, name string) *tlscert.NodeTLS {
	cert, key, _ := ca.Issue(t, name)
	n, err := tlscert.LoadNodeTLS(cert, key, ca.CAFile)
	require.NoError(t, err)
	return n
}

// TestNodeTLSFront: the leader's engine serves the node port inside mutual
// TLS; a front that holds a certificate of the cluster's CA carries its
// clients there (half-close included). A plain TCP peer, a peer with a
// certificate of another CA, and one with none are refused, and a front
// with another CA's certificate carries nothing.
func TestNodeTLSFront(t *testing.T) {
	ca := enginetest.NewCA(t, "cluster")
	leaderTLS, frontTLS := loadNode(t, ca, "n1"), loadNode(t, ca, "n2")
	leader := startLeader(t, func(c *engine.Config) {
		c.Addr, c.TLSAddr, c.TLSConfig = engine.NoPlainListener, "127.0.0.1:0", leaderTLS.ServerConfig()
	})
	nodeAddr := leader.Addr().String()
	require.Equal(t, leader.TLSAddr().String(), nodeAddr, "the node port is the TLS one")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f := Start(Config{Listener: ln, Leader: fixedLeader(nodeAddr), TLS: frontTLS.ClientConfig(),
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
	assert.True(t, enginetest.TLSRefused(t, nodeAddr, other.ClientConfig()), "a certificate of another CA")
	anon := frontTLS.ClientConfig()
	anon.GetClientCertificate = nil
	assert.True(t, enginetest.TLSRefused(t, nodeAddr, anon), "no certificate")
	assert.False(t, enginetest.TLSRefused(t, nodeAddr, frontTLS.ClientConfig()), "control: the cluster's certificate")

	// A front whose certificate the leader does not trust carries nothing.
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f2 := Start(Config{Listener: ln2, Leader: fixedLeader(nodeAddr), TLS: other.ClientConfig(),
		Wait: 300 * time.Millisecond, Logger: zerolog.New(zerolog.NewTestWriter(t))})
	t.Cleanup(func() { _ = f2.Stop(context.Background()) })
	rc := enginetest.Dial(t, f2.Addr().String())
	rc.Send("peek 1\r\n")
	assert.Equal(t, "INTERNAL_ERROR", rc.Line(), "nothing reaches the leader without the cluster's certificate")
}
