package raft

import (
	"fmt"
	"net"
	"testing"
	"time"

	hraft "github.com/hashicorp/raft"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/engine/tlscert"
	"github.com/stalkd/stalkd/jobs"
)

// nodeTLS loads a node's certificate from ca as package engine does for
// stalkd's --raft-tls-* flags.
func nodeTLS(t *testing.T, ca *enginetest.CA, name string) *NodeTLS {
	cert, key, _ := ca.Issue(t, name)
	n, err := tlscert.LoadNodeTLS(cert, key, ca.CAFile)
	require.NoError(t, err)
	return &NodeTLS{Server: n.ServerConfig(), Client: n.ClientConfig()}
}

func freeTCPAddr(t *testing.T) string { return enginetest.FreeAddr(t) }

// openTLSCluster opens size nodes on real TCP transports inside mutual
// TLS (certificates of ca), with stores in memory.
func openTLSCluster(t *testing.T, ca *enginetest.CA, size int) ([]*Node, []Peer) {
	var peers []Peer
	var held []net.Listener // distinct ports: each is held until all are chosen
	for i := range size {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		held = append(held, l)
		peers = append(peers, Peer{ID: fmt.Sprintf("n%d", i), Addr: l.Addr().String()})
	}
	for _, l := range held {
		_ = l.Close()
	}
	var nodes []*Node
	for _, p := range peers {
		nodes = append(nodes, openTLSNode(t, ca, p, peers))
	}
	return nodes, peers
}

// tlsTestTiming is testTiming with room for TLS handshakes on a loaded
// machine: at 150 ms a busy box turns a slow handshake into an election.
var tlsTestTiming = Timing{
	Heartbeat:   500 * time.Millisecond,
	Election:    500 * time.Millisecond,
	LeaderLease: 250 * time.Millisecond,
	Commit:      5 * time.Millisecond,
}

// openTLSNode opens node p on a real TCP transport inside mutual TLS, with
// stores in memory; peers nil: it waits to be added.
func openTLSNode(t *testing.T, ca *enginetest.CA, p Peer, peers []Peer) *Node {
	store := hraft.NewInmemStore()
	n, err := Open(Config{
		ID: p.ID, Addr: p.Addr, Peers: peers, TLS: nodeTLS(t, ca, p.ID),
		LogStore: store, StableStore: store, SnapshotStore: newMemSnapshots(),
		Timing:   tlsTestTiming,
		OnLeader: func(*jobs.Queue) (string, error) { return "client-" + p.ID, nil },
		Logger:   testLogger().With().Str("node", p.ID).Logger(),
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = n.Close() })
	return n
}

// TestNodeTLSClusterCommits: three nodes whose raft traffic runs inside
// mutual TLS elect a leader and commit a put on every node.
func TestNodeTLSClusterCommits(t *testing.T) {
	ca := enginetest.NewCA(t, "cluster")
	nodes, _ := openTLSCluster(t, ca, 3)
	// A leader may lose its term on a loaded machine before the put
	// commits: the put is then tried again on whoever leads next.
	var id uint64
	enginetest.Eventually(t, "a put committed by a leader", func() bool {
		for _, n := range nodes {
			q := n.Queue()
			if q == nil {
				continue
			}
			s := q.NewSession(nil)
			pid, seq, err := s.Put(jobs.PutRequest{TTR: time.Minute, Owned: []byte("sealed")})
			if err == nil && waitCommitted(t, q, seq) == nil {
				id = pid
				return true
			}
		}
		return false
	})
	for _, n := range nodes {
		enginetest.Eventually(t, "the put on every node", func() bool {
			var body string
			_ = n.fsm.withState(func(s *state) error {
				if r := s.jobs[id]; r != nil {
					body = string(r.Body)
				}
				return nil
			})
			return body == "sealed"
		})
	}
}

// intruder is a raft transport that is not a member: plain TCP, or inside
// TLS with a certificate of another CA.
func intruder(t *testing.T, t2 *NodeTLS) hraft.Transport {
	sl, err := newStreamLayer(freeTCPAddr(t), t2, testLogger())
	require.NoError(t, err)
	tr := hraft.NewNetworkTransportWithConfig(&hraft.NetworkTransportConfig{
		Stream: sl, MaxPool: 1, Timeout: 5 * time.Second, Logger: newHCLogger(testLogger()),
	})
	t.Cleanup(func() { _ = tr.Close() })
	return tr
}

// TestNodeTLSRefusesPeers: a member's raft port answers a peer with a
// certificate of the cluster's CA, and refuses a plain TCP peer and a peer
// whose certificate another CA signed: their vote requests and appends
// with a higher term fail, and the member's term does not move.
func TestNodeTLSRefusesPeers(t *testing.T) {
	ca := enginetest.NewCA(t, "cluster")
	nodes, peers := openTLSCluster(t, ca, 3)
	enginetest.Eventually(t, "a leader", func() bool { id, _ := nodes[0].Leader(); return id != "" })
	target := hraft.ServerAddress(peers[0].Addr)
	term := func() uint64 { return nodes[0].Raft().CurrentTerm() }

	ask := func(tr hraft.Transport, name string) (voteErr, appendErr error) {
		hdr := hraft.RPCHeader{ProtocolVersion: hraft.ProtocolVersionMax, ID: []byte(name),
			Addr: []byte(tr.LocalAddr())}
		var vr hraft.RequestVoteResponse
		voteErr = tr.RequestVote("n0", target, &hraft.RequestVoteRequest{
			RPCHeader: hdr, Term: term() + 100, LastLogIndex: 1 << 40, LastLogTerm: term() + 99,
		}, &vr)
		var ar hraft.AppendEntriesResponse
		appendErr = tr.AppendEntries("n0", target, &hraft.AppendEntriesRequest{
			RPCHeader: hdr, Term: term() + 100, PrevLogEntry: 1 << 40, PrevLogTerm: term() + 99,
		}, &ar)
		return voteErr, appendErr
	}

	before := term()
	other := enginetest.NewCA(t, "other")
	for name, tr := range map[string]hraft.Transport{
		"plain":       intruder(t, nil),
		"another CA":  intruder(t, nodeTLS(t, other, "rogue")),
		"no cert (*)": intruder(t, noCertTLS(t, ca)),
	} {
		ve, ae := ask(tr, "rogue")
		assert.Error(t, ve, "%s: a vote request must be refused", name)
		assert.Error(t, ae, "%s: an append must be refused", name)
	}
	// The refused requests carried term+100: a real election on a loaded
	// box moves the term by a few, theirs would have moved it by 100.
	assert.Less(t, term(), before+50, "no refused peer moved the term")

	// Control: the same calls with a certificate of the cluster's CA reach
	// raft (a probe that changes nothing: a pre-vote).
	good := intruder(t, nodeTLS(t, ca, "n9"))
	var pr hraft.RequestPreVoteResponse
	err := good.(hraft.WithPreVote).RequestPreVote("n0", target, &hraft.RequestPreVoteRequest{
		RPCHeader: hraft.RPCHeader{ProtocolVersion: hraft.ProtocolVersionMax, ID: []byte("n9"), Addr: []byte(good.LocalAddr())},
		Term:      1,
	}, &pr)
	require.NoError(t, err, "a peer with the cluster's certificate reaches raft")
	assert.GreaterOrEqual(t, pr.Term, before)
}

// noCertTLS is TLS that trusts the cluster's CA but presents no
// certificate.
func noCertTLS(t *testing.T, ca *enginetest.CA) *NodeTLS {
	n := nodeTLS(t, ca, "anon")
	c := n.Client.Clone()
	c.GetClientCertificate = nil
	return &NodeTLS{Server: n.Server, Client: c}
}
