package node_test

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/engine/tlscert"
)

// nodeTLSProcs makes n members whose node traffic runs inside mutual TLS
// with certificates of ca (not started).
func nodeTLSProcs(t *testing.T, ca *enginetest.CA, n int, extra ...string) []*enginetest.Member {
	var procs []*enginetest.Member
	for i := range n {
		id := fmt.Sprintf("n%d", i+1)
		cert, key, _ := ca.Issue(t, id)
		procs = append(procs, enginetest.NewMember(t, id,
			append([]string{"--raft-tls-cert", cert, "--raft-tls-key", key, "--raft-tls-ca", ca.CAFile}, extra...)...))
	}
	return procs
}

// peerRefused reports whether a node port refused a TLS peer with cfg:
// the handshake fails, or the server's alert follows it (in TLS 1.3 a
// client hears that its certificate was refused after its side of the
// handshake). A peer that was let in hears nothing: the port waits for
// its first request.
func peerRefused(addr string, cfg *tls.Config) bool {
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, cfg)
	if err != nil {
		return true
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	_, err = c.Read(make([]byte, 64))
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// plainRefused reports whether a TLS-only port closed a plain TCP peer
// without answering it in kind (at most a TLS alert record, 0x15).
func plainRefused(t *testing.T, addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	require.NoError(t, err)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	_, _ = io.WriteString(c, "list-tube-used\r\n")
	b, err := io.ReadAll(c)
	return err == nil && (len(b) == 0 || b[0] == 0x15) // closed, with nothing but an alert
}

// TestClusterNodeTLS: three processes whose node traffic runs inside
// mutual TLS elect a leader and commit puts sent through every node (the
// followers carry them to the leader's node port inside TLS). Each raft
// port and the leader's node port refuse a plain TCP peer, a peer with a
// certificate of another CA and one with none; a peer with the cluster's
// certificate gets through (the control). Each node's admin API shows its
// own view, stats-cluster through a follower the leader's; a fourth node
// is added through a follower, which forwards the change to the leader
// inside node TLS, and catches up. Then SIGHUP rotates every node
// to a new CA, one node at a time while the old CA is still trusted: the
// cluster keeps committing, and the old CA's certificates are refused.
func TestClusterNodeTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three real processes")
	}
	ca := enginetest.NewCA(t, "cluster")
	procs := nodeTLSProcs(t, ca, 3, "--raft-timeout", "1s", "--admin", "127.0.0.1:0")
	for _, p := range procs {
		p.Start(t, procs)
	}
	leader := enginetest.WaitLeader(t, procs)
	require.True(t, procs[0].Logged("node traffic inside mutual TLS"))
	putEach := func(round int) {
		for i, p := range procs {
			c, err := enginetest.DialClient(p.Addr())
			require.NoError(t, err)
			line, _, err := c.Do(fmt.Sprintf("put 0 0 60 4\r\nr%dn%d\r\n", round, i))
			for n := 0; err == nil && line == internalError && n < 50; n++ { // a leader change in between
				time.Sleep(100 * time.Millisecond)
				line, _, err = c.Do(fmt.Sprintf("put 0 0 60 4\r\nr%dn%d\r\n", round, i))
			}
			c.Close()
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(line, "INSERTED "), "put through %s: %s", p.ID, line)
		}
	}
	putEach(1)

	// Each node's admin API shows its own view; stats-cluster through a
	// follower is answered by the leader, and its id is the leader's.
	for _, p := range procs {
		assert.Equal(t, p.ID, p.Cluster(t).ID)
	}
	doc := statsClusterDoc(t, procs[(leader+1)%3].Addr())
	assert.Contains(t, doc, "\nstate: leader\n")
	id, _, _ := strings.Cut(strings.SplitN(doc, "\nid: ", 2)[1], "\n")
	assert.Contains(t, doc, "\nleader: "+id+"\n", "the answer's id is the answering node, the leader")

	// A node added through a follower: the change is forwarded to the
	// leader over the raft port, inside node TLS.
	n4cert, n4key, _ := ca.Issue(t, "n4")
	n4 := enginetest.NewMember(t, "n4", "--raft-tls-cert", n4cert, "--raft-tls-key", n4key, "--raft-tls-ca", ca.CAFile,
		"--raft-timeout", "1s", "--admin", "127.0.0.1:0")
	n4.NoPeers = true
	n4.Start(t, nil)
	leader = enginetest.WaitLeader(t, procs)
	follower := procs[(leader+1)%3]
	add := map[string]string{"id": n4.ID, "addr": n4.RaftAddr}
	var v enginetest.ClusterView
	if code := enginetest.AdminCall(t, http.MethodPost, follower.AdminURL(t)+"/v1/cluster/voters", "", add, &v); code == http.StatusOK {
		assert.Equal(t, follower.ID, v.ID)
		assert.Eventually(t, func() bool { return follower.Logged("membership change forwarded to the leader") },
			10*time.Second, 10*time.Millisecond, "the follower forwarded it (its log is read as it comes)")
	} else { // leadership moved meanwhile (a loaded box)
		v = enginetest.OnLeader(t, procs, http.MethodPost, "/v1/cluster/voters", add)
	}
	require.Len(t, v.Servers, 4)
	enginetest.WaitApplied(t, n4, v.CommitIndex)
	procs = append(procs, n4)

	cert, key, _ := ca.Issue(t, "probe")
	good, err := tlscert.LoadNodeTLS(cert, key, ca.CAFile)
	require.NoError(t, err)
	otherCA := enginetest.NewCA(t, "other")
	ocert, okey, _ := otherCA.Issue(t, "rogue")
	rogue, err := tlscert.LoadNodeTLS(ocert, okey, otherCA.CAFile)
	require.NoError(t, err)
	anon := good.ClientConfig()
	anon.GetClientCertificate = nil
	ports := map[string]string{"the leader's node port": procs[leader].NodePort(t)}
	for _, p := range procs {
		ports[p.ID+"'s raft port"] = p.RaftAddr
	}
	for what, addr := range ports {
		assert.True(t, plainRefused(t, addr), "%s: plain TCP", what)
		assert.True(t, peerRefused(addr, rogue.ClientConfig()), "%s: another CA", what)
		assert.True(t, peerRefused(addr, anon), "%s: no certificate", what)
		assert.False(t, peerRefused(addr, good.ClientConfig()), "%s: the cluster's certificate", what)
	}
	assert.Eventually(t, func() bool { return procs[leader].Logged("tls handshake failed") },
		10*time.Second, 10*time.Millisecond, "the node port's refusals are logged")
	for _, p := range procs {
		assert.Eventually(t, func() bool { return p.Logged("raft peer refused: TLS handshake failed") },
			10*time.Second, 10*time.Millisecond, "%s: the raft port's refusals are logged", p.ID)
	}

	// Rotation: every node trusts both CAs, then presents a certificate
	// of the new one, then trusts the new one only. A SIGHUP per step.
	newCA := enginetest.NewCA(t, "renewed")
	oldPEM, err := os.ReadFile(ca.CAFile)
	require.NoError(t, err)
	newPEM, err := os.ReadFile(newCA.CAFile)
	require.NoError(t, err)
	hup := func(reloads int, what string) {
		for _, p := range procs {
			require.NoError(t, p.Signal(syscall.SIGHUP))
		}
		for _, p := range procs {
			p.WaitField(t, what, func(logs []string) string {
				n := 0
				for _, l := range logs {
					if strings.Contains(l, "reloaded the node certificate and CA") {
						n++
					}
				}
				if n >= reloads {
					return "yes"
				}
				return ""
			})
		}
	}
	require.NoError(t, os.WriteFile(ca.CAFile, append(append([]byte{}, oldPEM...), newPEM...), 0o600))
	hup(1, "reload 1: both CAs")
	for _, p := range procs {
		c, k, _ := newCA.Issue(t, p.ID+"-renewed")
		copyFile(t, c, p.Extra[1])
		copyFile(t, k, p.Extra[3])
	}
	hup(2, "reload 2: the new certificates")
	require.NoError(t, os.WriteFile(ca.CAFile, newPEM, 0o600))
	hup(3, "reload 3: the new CA only")
	putEach(2)
	for _, p := range procs {
		assert.True(t, peerRefused(p.RaftAddr, good.ClientConfig()), "%s: the old CA's certificate after the rotation", p.ID)
	}
	ncert, nkey, _ := newCA.Issue(t, "probe2")
	renewed, err := tlscert.LoadNodeTLS(ncert, nkey, newCA.CAFile)
	require.NoError(t, err)
	for _, p := range procs {
		assert.False(t, peerRefused(p.RaftAddr, renewed.ClientConfig()), "%s: the new CA's certificate", p.ID)
	}
}

func copyFile(t *testing.T, src, dst string) {
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dst, b, 0o600))
}

// TestClusterNodeTLSOffWarns: without the --raft-tls-* flags a member
// starts as before and warns that node traffic is plain.
func TestClusterNodeTLSOffWarns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real process")
	}
	procs := enginetest.StartCluster(t, 1)
	enginetest.WaitLeader(t, procs)
	assert.True(t, procs[0].Logged("node traffic is unencrypted"))
	assert.False(t, procs[0].Logged("node traffic inside mutual TLS"))
}
