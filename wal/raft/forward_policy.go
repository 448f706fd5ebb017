package raft

import (
	"errors"
	"fmt"
	"time"

	hraft "github.com/hashicorp/raft"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// Forwarded policy changes. A tube policy lives in the
// replicated state, and only the leader's queue may change it; asked of a
// follower, ForwardSetPolicy and ForwardRemovePolicy send the change to the
// leader the way membership changes go (forward.go: the raft port, node
// TLS, one JSON line each way, one hop at most). The leader carries it out
// on the queue of its current term and answers once the change is
// committed, as its own admin API does; a policy it refuses comes back as
// the same *jobs.PolicyError, naming the field.

// policyFault is a *jobs.PolicyError on the wire.
type policyFault struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
	Tube   string `json:"tube,omitempty"`
}

// electedPoll is how often a change that arrives while this node, just
// elected, still builds its queue looks again (a rare and short wait).
const electedPoll = 2 * time.Millisecond

// ForwardSetPolicy is jobs.Queue.SetPolicy asked of any node: this node
// carries it out if it leads, else the leader does. It returns once the
// change is committed. A refused policy is a *jobs.PolicyError;
// cluster.ErrNotLeader: no leader is known, or leadership moved while the
// change was under way (retry).
func (n *Node) ForwardSetPolicy(tube string, p jobs.Policy) error {
	_, err := n.forwardPolicy(forwardReq{Op: "set-policy", Tube: tube, Policy: &p})
	return err
}

// ForwardPatchPolicy applies patch, a JSON merge patch (RFC 7386), to the
// tube's current policy on the leader, atomically there
// (jobs.Queue.UpdatePolicySeq with jobs.MergePolicyPatch): the follower
// carries the patch, never a policy it read and merged itself. It returns
// the policy the patch left (zero: removed) once committed; errors as
// ForwardSetPolicy. Applying the same patch twice (a retry after
// leadership moved) leaves the same policy.
func (n *Node) ForwardPatchPolicy(tube string, patch []byte) (jobs.Policy, error) {
	resp, err := n.forwardPolicy(forwardReq{Op: "patch-policy", Tube: tube, Patch: patch})
	if err != nil || resp.Policy == nil {
		return jobs.Policy{}, err
	}
	return *resp.Policy, nil
}

// ForwardRemovePolicy is jobs.Queue.RemovePolicy asked of any node (see
// ForwardSetPolicy); removed is false when the tube had no policy.
func (n *Node) ForwardRemovePolicy(tube string) (removed bool, err error) {
	resp, err := n.forwardPolicy(forwardReq{Op: "remove-policy", Tube: tube})
	return resp.Removed, err
}

// ForwardReplacePolicies is jobs.Queue.ReplacePoliciesSeq asked of any
// node (see ForwardSetPolicy): the leader makes set its policies exactly,
// in one committed entry, and reports what changed. A refused set is a
// *jobs.PolicyError naming the tube and the field.
func (n *Node) ForwardReplacePolicies(set map[string]jobs.Policy) ([]jobs.PolicyChange, error) {
	resp, err := n.forwardPolicy(forwardReq{Op: "replace-policies", Policies: set})
	return resp.Changes, err
}

func (n *Node) forwardPolicy(req forwardReq) (forwardResp, error) {
	return n.forwardTo(req, n.localPolicy, "policy change forwarded to the leader")
}

// forwardTo carries out req with local if this node leads, else sends it
// to the leader (logging msg once it took it): one hop at most.
func (n *Node) forwardTo(req forwardReq, local func(forwardReq) (forwardResp, error), msg string) (forwardResp, error) {
	resp, err := local(req)
	if !errors.Is(err, cluster.ErrNotLeader) || n.stream == nil {
		return resp, err
	}
	leaderAddr, leaderID := n.raft.LeaderWithID()
	if leaderAddr == "" || string(leaderID) == n.cfg.ID {
		return resp, err
	}
	resp, err = n.sendChange(string(leaderAddr), req)
	if err == nil {
		n.log.Info().Str("op", req.Op).Str("tube", req.Tube).Str("leader", string(leaderID)).Msg(msg)
	}
	return resp, err
}

// localPolicy carries out a policy change on this term's queue and waits
// until it is committed (bounded by ApplyTimeout); cluster.ErrNotLeader if
// this node does not lead, or stopped leading before the change committed.
func (n *Node) localPolicy(req forwardReq) (forwardResp, error) {
	var resp forwardResp
	t := n.termOf()
	if t == nil {
		return resp, cluster.ErrNotLeader
	}
	q := t.q
	var seq uint64
	var err error
	switch req.Op {
	case "set-policy":
		if req.Policy == nil {
			return resp, errors.New("raft: set-policy without a policy")
		}
		seq, err = q.SetPolicySeq(req.Tube, *req.Policy)
	case "patch-policy":
		var p jobs.Policy
		p, seq, err = q.UpdatePolicySeq(req.Tube, func(cur jobs.Policy, _ bool) (jobs.Policy, error) {
			return jobs.MergePolicyPatch(cur, req.Patch)
		})
		if !p.IsZero() {
			resp.Policy = &p
		}
	case "remove-policy":
		resp.Removed, seq, err = q.RemovePolicySeq(req.Tube)
	case "replace-policies":
		resp.Changes, seq, err = q.ReplacePoliciesSeq(req.Policies)
	default:
		return resp, fmt.Errorf("raft: unknown policy change %q", req.Op)
	}
	if err != nil {
		return resp, n.termError(q, err)
	}
	if seq == 0 {
		return resp, nil // nothing changed
	}
	return resp, n.waitCommitted(t, seq)
}

// termOf returns this node's term of leadership; nil if it does not lead.
// Just elected, a leader builds its queue first (a barrier, then the
// restore): a change that arrives meanwhile waits for it (bounded by
// ApplyTimeout) rather than be refused as not the leader's.
func (n *Node) termOf() *leaderTerm {
	deadline := time.Now().Add(n.cfg.ApplyTimeout)
	for {
		if t := n.leading(); t != nil || n.raft.State() != hraft.Leader || time.Now().After(deadline) {
			return t
		}
		time.Sleep(electedPoll)
	}
}

// waitCommitted waits until seq of t's queue is committed (or its journal
// fails), woken by t's commit signal, the protocol's own broadcast: no
// polling.
func (n *Node) waitCommitted(t *leaderTerm, seq uint64) error {
	timeout := time.NewTimer(n.cfg.ApplyTimeout)
	defer timeout.Stop()
	for {
		woken := t.commits.wait() // before the check: no commit is missed
		done, err := t.q.Committed(seq)
		if done {
			return n.termError(t.q, err)
		}
		select {
		case <-woken:
		case <-timeout.C:
			return n.termError(t.q, errors.New("raft: the change was not committed in time"))
		}
	}
}

// termError marks err as cluster.ErrNotLeader when q's term is over (the
// change may or may not have committed: the caller retries, and setting or
// removing a policy twice is harmless).
func (n *Node) termError(q *jobs.Queue, err error) error {
	if err == nil || n.Queue() == q {
		return err
	}
	var pe *jobs.PolicyError
	if errors.As(err, &pe) {
		return err
	}
	return fmt.Errorf("%w: leadership moved (%v)", cluster.ErrNotLeader, err)
}
