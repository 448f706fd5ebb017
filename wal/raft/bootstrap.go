package raft

import (
	"errors"
	"fmt"
	"time"

	hraft "github.com/hashicorp/raft"
)

// Bootstrapping safely. A node with no raft state bootstraps the cluster
// from Config.Peers - unless a cluster already exists: a node that lost
// its disk and is restarted with its usual flags must not found a second
// cluster (it could not win an election against up-to-date peers, but a
// majority wiped at once would elect each other on empty logs and lose
// every acknowledged job). So before bootstrapping, the node asks the other
// peers for their raft term with a pre-vote request, which changes nothing
// on the peer. A peer whose term is 2 or more belongs to a cluster that has
// elected a leader (bootstrapping sets term 1; the first election makes
// it 2): the node does not bootstrap, and waits to be added (AddVoter on
// the leader) or, if it is still a member, to be caught up by the leader.
// Peers that do not answer within probeWait, or answer term 0 or 1, are
// part of a fresh start: the node bootstraps with the same peers as they
// did, hashicorp/raft's usual way (identical bootstrap configurations are
// safe, and a cluster that never elected a leader holds no data).

// electedTerm is the lowest term of a cluster that has elected a leader.
const electedTerm = 2

// probeWait bounds the probe of the other peers.
const probeWait = 2 * time.Second

// probeResult is one peer's answer.
type probeResult struct {
	id   string
	term uint64
	err  error
}

// existingCluster returns a peer that has raft state (and its term), or
// ok false when none of the others answered with one.
func (n *Node) existingCluster(peers []Peer) (id string, term uint64, ok bool) {
	pv, can := n.cfg.Transport.(hraft.WithPreVote)
	if !can {
		return "", 0, false
	}
	local := n.cfg.Transport.LocalAddr()
	hdr := hraft.RPCHeader{
		ProtocolVersion: hraft.ProtocolVersionMax,
		ID:              []byte(n.cfg.ID),
		Addr:            n.cfg.Transport.EncodePeer(hraft.ServerID(n.cfg.ID), local),
	}
	results := make(chan probeResult, len(peers))
	asked := 0
	for _, p := range peers {
		if p.ID == n.cfg.ID {
			continue
		}
		asked++
		go func(p Peer) {
			req := &hraft.RequestPreVoteRequest{RPCHeader: hdr}
			var resp hraft.RequestPreVoteResponse
			err := pv.RequestPreVote(hraft.ServerID(p.ID), hraft.ServerAddress(p.Addr), req, &resp)
			results <- probeResult{id: p.ID, term: resp.Term, err: err}
		}(p)
	}
	deadline := time.After(probeWait)
	for ; asked > 0; asked-- {
		select {
		case r := <-results:
			if r.err == nil && r.term >= electedTerm {
				return r.id, r.term, true
			}
			n.log.Debug().Str("peer", r.id).Uint64("term", r.term).AnErr("probe_err", r.err).
				Msg("peer has no raft state")
		case <-deadline:
			return "", 0, false
		}
	}
	return "", 0, false
}

// bootstrap founds the cluster with peers as its voters, unless another
// peer already has state (see existingCluster).
func (n *Node) bootstrap(peers []Peer) error {
	if id, term, ok := n.existingCluster(peers); ok {
		n.log.Warn().Str("peer", id).Uint64("term", term).
			Msg("no raft state, but the cluster exists: not bootstrapping; waiting to be added (stalkctl add-voter on the leader)")
		return nil
	}
	var servers []hraft.Server
	for _, p := range peers {
		servers = append(servers, hraft.Server{Suffrage: hraft.Voter, ID: hraft.ServerID(p.ID), Address: hraft.ServerAddress(p.Addr)})
	}
	if err := n.raft.BootstrapCluster(hraft.Configuration{Servers: servers}).Error(); err != nil && !errors.Is(err, hraft.ErrCantBootstrap) {
		return fmt.Errorf("raft: bootstrap: %w", err)
	}
	n.log.Info().Int("peers", len(servers)).Msg("cluster bootstrapped")
	return nil
}
