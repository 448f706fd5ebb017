package raft

import (
	"errors"
	"fmt"

	hraft "github.com/hashicorp/raft"

	"github.com/stalkd/stalkd/jobs/cluster"
)

// AddVoter adds the node id, reachable at its raft address addr, to the
// cluster as a voter, and waits until the change is committed. It must run
// on the leader (else cluster.ErrNotLeader; ask the leader, which Leader names). The new node starts with an empty -b
// directory and no --raft-peers, and catches up from the leader (a
// snapshot, then the log).
// Adding a node that is already a member with the same address does
// nothing; with another address it moves it.
func (n *Node) AddVoter(id, addr string) error {
	if n.raft.State() != hraft.Leader {
		return cluster.ErrNotLeader
	}
	f := n.raft.AddVoter(hraft.ServerID(id), hraft.ServerAddress(addr), 0, n.cfg.ApplyTimeout)
	if err := f.Error(); err != nil {
		return fmt.Errorf("raft: add voter %s: %w", id, notLeader(err))
	}
	n.log.Info().Str("peer", id).Str("peer_addr", addr).Msg("voter added")
	return nil
}

// RemoveServer removes the node id from the cluster and waits until the
// change is committed. It must run on the leader; a leader may remove
// itself (it steps down once the change commits). To replace a node that
// lost its disk: RemoveServer, then start it on an empty directory (its
// --raft-peers may stay: it finds the cluster and does not bootstrap, see
// bootstrap.go), then AddVoter.
func (n *Node) RemoveServer(id string) error {
	if n.raft.State() != hraft.Leader {
		return cluster.ErrNotLeader
	}
	if err := n.raft.RemoveServer(hraft.ServerID(id), 0, n.cfg.ApplyTimeout).Error(); err != nil {
		return fmt.Errorf("raft: remove %s: %w", id, notLeader(err))
	}
	n.log.Info().Str("peer", id).Msg("server removed")
	return nil
}

// notLeader maps raft's "leadership lost" errors to cluster.ErrNotLeader.
func notLeader(err error) error {
	if errors.Is(err, hraft.ErrNotLeader) || errors.Is(err, hraft.ErrLeadershipLost) {
		return fmt.Errorf("%w (%w)", cluster.ErrNotLeader, err)
	}
	return err
}
