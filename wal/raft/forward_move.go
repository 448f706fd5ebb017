package raft

import (
	"errors"
	"fmt"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// Forwarded moves: a redrive of a dead-letter tube or the move
// of one job, asked of a follower, goes to the leader the way policy
// changes do (forward_policy.go: the raft port, node TLS, one JSON line
// each way, one hop at most). The leader carries it out on the queue of
// its current term and answers, with its counts, once what it moved is
// committed; a refusal (no such tube or job, a reserved job, a bad name,
// a redrive into the tube itself) comes back as the same jobs sentinel,
// so that the follower's admin API answers as the leader's would.

// refusals are the queue's refusals a forwarded move carries back, by the
// code that names each on the node wire.
var refusals = [...]struct {
	code string
	err  error
}{
	{"not_found", jobs.ErrNotFound},
	{"bad_tube_name", jobs.ErrBadTubeName},
	{"reserved", jobs.ErrReservedJob},
	{"same_tube", jobs.ErrSameTube},
}

// refusalCode names err's refusal ("" for any other error).
func refusalCode(err error) string {
	for _, r := range refusals {
		if errors.Is(err, r.err) {
			return r.code
		}
	}
	return ""
}

// refusal is the error a refusal code from the leader at addr stands for.
func refusal(code, addr string) error {
	for _, r := range refusals {
		if r.code == code {
			return fmt.Errorf("%w (the leader at %s)", r.err, addr)
		}
	}
	return fmt.Errorf("raft: the leader at %s refused the move (%s)", addr, code)
}

// ForwardRedrive is jobs.Queue.Redrive asked of any node: this node
// carries it out if it leads, else the leader does. It returns once what
// moved is committed. A refusal is the queue's sentinel (errors.Is);
// cluster.ErrNotLeader: no leader is known, or leadership moved while the
// redrive was under way (retry: the jobs that moved are no longer in the
// tube, so a retry moves only the rest). Safe for concurrent use; it
// blocks, so never call it from an event loop.
func (n *Node) ForwardRedrive(tube string, r jobs.RedriveRequest) (jobs.RedriveResult, error) {
	resp, err := n.forwardTo(forwardReq{Op: "redrive", Tube: tube, To: r.To, Max: r.Max}, n.localMove,
		"redrive forwarded to the leader")
	var res jobs.RedriveResult
	if resp.Redrive != nil {
		res = *resp.Redrive
	}
	return res, err
}

// ForwardMoveJob is jobs.Queue.MoveJob asked of any node (see
// ForwardRedrive; the same contract); moved is false when the job was
// already in that tube.
func (n *Node) ForwardMoveJob(id uint64, to string) (moved bool, err error) {
	resp, err := n.forwardTo(forwardReq{Op: "move-job", Job: id, To: to}, n.localMove,
		"job move forwarded to the leader")
	return resp.Moved, err
}

// localMove carries out a redrive or a move on this term's queue and waits
// until what moved is committed (bounded by ApplyTimeout);
// cluster.ErrNotLeader if this node does not lead, or stopped leading
// before it committed.
func (n *Node) localMove(req forwardReq) (forwardResp, error) {
	var resp forwardResp
	t := n.termOf()
	if t == nil {
		return resp, cluster.ErrNotLeader
	}
	q := t.q
	var seq uint64
	var err error
	switch req.Op {
	case "redrive":
		var res jobs.RedriveResult
		res, err = q.Redrive(req.Tube, jobs.RedriveRequest{To: req.To, Max: req.Max})
		resp.Redrive, seq = &res, res.Seq
	case "move-job":
		seq, resp.Moved, err = q.MoveJob(req.Job, req.To)
	default:
		return resp, fmt.Errorf("raft: unknown move %q", req.Op)
	}
	if seq != 0 { // what moved before a failure is committed (or fails) first
		if werr := n.waitCommitted(t, seq); err == nil {
			err = werr
		}
	}
	return resp, n.termError(q, err)
}
