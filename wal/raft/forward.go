package raft

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"time"

	hraft "github.com/hashicorp/raft"
	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// Forwarded membership changes. Only the leader may change the voter set;
// asked of a follower, ForwardAddVoter and ForwardRemoveServer send the
// change to the leader over its raft port - inside node TLS when the
// cluster has it, so only a node with the cluster's certificate can ask -
// and the leader carries it out as AddVoter and RemoveServer do. The
// connection starts with forwardByte (raft's own RPCs start with their
// type, 0 to 4), then one JSON request line; the leader answers one JSON
// line. A node that does not lead when the request arrives answers "not
// leader" and never forwards again: one hop at most.

const (
	forwardByte = 0xF5
	// forwardWait bounds a forwarded change, from the dial to the answer.
	forwardWait = 30 * time.Second
	// forwardMaxLine bounds a request or answer line. A policy's
	// schedules carry job bodies: the admin API takes a policy of up to 1
	// MiB, which re-encoded grows at most threefold (an invalid UTF-8 byte
	// becomes U+FFFD), so 4 MiB and some slack (forward_policy.go).
	forwardMaxLine = 4<<20 + 64<<10
)

type forwardReq struct {
	// Op: "add-voter", "remove-server", "set-policy", "patch-policy",
	// "remove-policy", "replace-policies", "redrive" or "move-job".
	Op     string          `json:"op"`
	ID     string          `json:"id,omitempty"`
	Addr   string          `json:"addr,omitempty"`
	Tube   string          `json:"tube,omitempty"`   // the policy ops' and redrive's
	Policy *jobs.Policy    `json:"policy,omitempty"` // set-policy's
	Patch  json.RawMessage `json:"patch,omitempty"`  // patch-policy's merge patch (RFC 7386)
	// Policies is replace-policies' whole set (empty or absent: no policies).
	Policies map[string]jobs.Policy `json:"policies,omitempty"`
	// Job, To and Max are redrive's and move-job's (forward_move.go).
	Job uint64 `json:"job,omitempty"`
	To  string `json:"to,omitempty"`
	Max int    `json:"max,omitempty"`
}

type forwardResp struct {
	Error     string `json:"error,omitempty"`
	NotLeader bool   `json:"not_leader,omitempty"`
	// BadPolicy is the leader's refusal of a policy (a *jobs.PolicyError).
	BadPolicy *policyFault `json:"bad_policy,omitempty"`
	Removed   bool         `json:"removed,omitempty"` // remove-policy: there was one
	// Redrive, Moved and Refused are redrive's and move-job's answers
	// (forward_move.go).
	Redrive *jobs.RedriveResult `json:"redrive,omitempty"`
	Moved   bool                `json:"moved,omitempty"`
	Refused string              `json:"refused,omitempty"`
	// Policy is what patch-policy left (nil: no policy).
	Policy *jobs.Policy `json:"policy,omitempty"`
	// Changes are what replace-policies changed.
	Changes []jobs.PolicyChange `json:"changes,omitempty"`
}

// ForwardAddVoter is AddVoter asked of any node: this node carries it out
// if it leads, else the leader does (forwarded over its raft port). It
// returns once the change is committed and, on a follower, once this node's
// configuration shows it (bounded by ApplyTimeout). cluster.ErrNotLeader: no leader
// is known, or leadership moved while the change was under way; retry.
func (n *Node) ForwardAddVoter(id, addr string) error {
	return n.forwardChange(forwardReq{Op: "add-voter", ID: id, Addr: addr})
}

// ForwardRemoveServer is RemoveServer asked of any node (see
// ForwardAddVoter).
func (n *Node) ForwardRemoveServer(id string) error {
	return n.forwardChange(forwardReq{Op: "remove-server", ID: id})
}

func (n *Node) forwardChange(req forwardReq) error {
	_, err := n.localChange(req)
	if !errors.Is(err, cluster.ErrNotLeader) || n.stream == nil {
		return err
	}
	leaderAddr, leaderID := n.raft.LeaderWithID()
	if leaderAddr == "" || string(leaderID) == n.cfg.ID {
		return err
	}
	if _, err := n.sendChange(string(leaderAddr), req); err != nil {
		return err
	}
	n.log.Info().Str("op", req.Op).Str("peer", req.ID).Str("leader", string(leaderID)).
		Msg("membership change forwarded to the leader")
	n.waitConfig(req)
	return nil
}

// localChange carries out req if this node leads (else cluster.ErrNotLeader).
func (n *Node) localChange(req forwardReq) (forwardResp, error) {
	switch req.Op {
	case "add-voter":
		return forwardResp{}, n.AddVoter(req.ID, req.Addr)
	case "remove-server":
		return forwardResp{}, n.RemoveServer(req.ID)
	case "set-policy", "patch-policy", "remove-policy", "replace-policies":
		return n.localPolicy(req)
	case "redrive", "move-job":
		return n.localMove(req)
	}
	return forwardResp{}, fmt.Errorf("raft: unknown forwarded change %q", req.Op)
}

// sendChange asks the leader at addr to carry out req; a refused policy
// comes back as a *jobs.PolicyError.
func (n *Node) sendChange(addr string, req forwardReq) (forwardResp, error) {
	var resp forwardResp
	var b bytes.Buffer
	b.WriteByte(forwardByte)
	enc := json.NewEncoder(&b) // ends the line with '\n'
	enc.SetEscapeHTML(false)   // a schedule's body keeps its size
	if err := enc.Encode(req); err != nil {
		return resp, fmt.Errorf("raft: forward: %w", err)
	}
	if b.Len() > forwardMaxLine {
		return resp, &jobs.PolicyError{Reason: "too large to forward to the leader"}
	}
	c, err := n.stream.Dial(hraft.ServerAddress(addr), 10*time.Second)
	if err != nil {
		return resp, fmt.Errorf("raft: forward to the leader at %s: %w", addr, err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(forwardWait))
	if _, err := c.Write(b.Bytes()); err != nil {
		return resp, fmt.Errorf("raft: forward to the leader at %s: %w", addr, err)
	}
	if err := readJSONLine(c, &resp); err != nil {
		return resp, fmt.Errorf("raft: forward to the leader at %s: %w", addr, err)
	}
	switch {
	case resp.NotLeader:
		return resp, fmt.Errorf("%w: %s no longer leads (%s)", cluster.ErrNotLeader, addr, resp.Error)
	case resp.BadPolicy != nil:
		return resp, &jobs.PolicyError{Field: resp.BadPolicy.Field, Reason: resp.BadPolicy.Reason, Tube: resp.BadPolicy.Tube}
	case resp.Refused != "":
		return resp, refusal(resp.Refused, addr)
	case resp.Error != "":
		return resp, fmt.Errorf("raft: the leader at %s: %s", addr, resp.Error)
	}
	return resp, nil
}

// serveForward serves one forwarded change on an accepted connection whose
// first byte (forwardByte) r has peeked.
func (n *Node) serveForward(c net.Conn, r *bufio.Reader) {
	_ = c.SetDeadline(time.Now().Add(forwardWait))
	_, _ = r.ReadByte()
	var req forwardReq
	var resp forwardResp
	var err error
	if err = readJSONLine(r, &req); err != nil {
		resp.Error = "bad request: " + err.Error()
	} else if resp, err = n.localChange(req); err != nil {
		resp.Error, resp.NotLeader = err.Error(), errors.Is(err, cluster.ErrNotLeader)
		var pe *jobs.PolicyError
		if errors.As(err, &pe) {
			resp.BadPolicy = &policyFault{Field: pe.Field, Reason: pe.Reason, Tube: pe.Tube}
		}
		resp.Refused = refusalCode(err)
	} else {
		ev := n.log.Info().Str("op", req.Op).Str("remote_addr", c.RemoteAddr().String())
		switch req.Op {
		case "redrive", "move-job":
			ev.Str("tube", req.Tube).Uint64("job_id", req.Job).Str("to", req.To).Msg("move carried out for a follower")
		case "replace-policies":
			ev.Int("changes", len(resp.Changes)).Msg("policy change carried out for a follower")
		case "set-policy", "patch-policy", "remove-policy":
			ev.Str("tube", req.Tube).Msg("policy change carried out for a follower")
		default:
			ev.Str("peer", req.ID).Msg("membership change carried out for a follower")
		}
	}
	b, _ := json.Marshal(resp)
	_, _ = c.Write(append(b, '\n'))
}

// readJSONLine decodes one line of at most forwardMaxLine bytes.
func readJSONLine(r io.Reader, v any) error {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > forwardMaxLine {
			return errors.New("line too long")
		}
		line = append(line, chunk...)
		if err == nil {
			return json.Unmarshal(line, v)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// waitConfig waits (bounded by ApplyTimeout) until this node's
// configuration shows a change the leader committed, so that what it
// reports next includes it. A node that removed itself may never hear of
// it: the wait just ends.
func (n *Node) waitConfig(req forwardReq) {
	deadline := time.Now().Add(n.cfg.ApplyTimeout)
	for time.Now().Before(deadline) {
		f := n.raft.GetConfiguration()
		if f.Error() == nil {
			has := slices.ContainsFunc(f.Configuration().Servers, func(s hraft.Server) bool {
				return string(s.ID) == req.ID && (req.Addr == "" || string(s.Address) == req.Addr)
			})
			if has == (req.Op == "add-voter") {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}
