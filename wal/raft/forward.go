package raft

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"time"

	hraft "github.com/hashicorp/raft"
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
	// forwardMaxLine bounds a request or answer line.
	forwardMaxLine = 4096
)

type forwardReq struct {
	Op   string `json:"op"` // "add-voter" or "remove-server"
	ID   string `json:"id"`
	Addr string `json:"addr,omitempty"`
}

type forwardResp struct {
	Error     string `json:"error,omitempty"`
	NotLeader bool   `json:"not_leader,omitempty"`
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
	err := n.localChange(req)
	if !errors.Is(err, cluster.ErrNotLeader) || n.stream == nil {
		return err
	}
	leaderAddr, leaderID := n.raft.LeaderWithID()
	if leaderAddr == "" || string(leaderID) == n.cfg.ID {
		return err
	}
	if err := n.sendChange(string(leaderAddr), req); err != nil {
		return err
	}
	n.log.Info().Str("op", req.Op).Str("peer", req.ID).Str("leader", string(leaderID)).
		Msg("membership change forwarded to the leader")
	n.waitConfig(req)
	return nil
}

// localChange carries out req if this node leads (else cluster.ErrNotLeader).
func (n *Node) localChange(req forwardReq) error {
	switch req.Op {
	case "add-voter":
		return n.AddVoter(req.ID, req.Addr)
	case "remove-server":
		return n.RemoveServer(req.ID)
	}
	return fmt.Errorf("raft: unknown membership change %q", req.Op)
}

// sendChange asks the leader at addr to carry out req.
func (n *Node) sendChange(addr string, req forwardReq) error {
	c, err := n.stream.Dial(hraft.ServerAddress(addr), 10*time.Second)
	if err != nil {
		return fmt.Errorf("raft: forward to the leader at %s: %w", addr, err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(forwardWait))
	b, _ := json.Marshal(req)
	if _, err := c.Write(append(append([]byte{forwardByte}, b...), '\n')); err != nil {
		return fmt.Errorf("raft: forward to the leader at %s: %w", addr, err)
	}
	var resp forwardResp
	if err := readJSONLine(c, &resp); err != nil {
		return fmt.Errorf("raft: forward to the leader at %s: %w", addr, err)
	}
	switch {
	case resp.NotLeader:
		return fmt.Errorf("%w: %s no longer leads (%s)", cluster.ErrNotLeader, addr, resp.Error)
	case resp.Error != "":
		return fmt.Errorf("raft: the leader at %s: %s", addr, resp.Error)
	}
	return nil
}

// serveForward serves one forwarded change on an accepted connection whose
// first byte (forwardByte) r has peeked.
func (n *Node) serveForward(c net.Conn, r *bufio.Reader) {
	_ = c.SetDeadline(time.Now().Add(forwardWait))
	_, _ = r.ReadByte()
	var req forwardReq
	var resp forwardResp
	if err := readJSONLine(r, &req); err != nil {
		resp.Error = "bad request: " + err.Error()
	} else if err := n.localChange(req); err != nil {
		resp.Error, resp.NotLeader = err.Error(), errors.Is(err, cluster.ErrNotLeader)
	} else {
		n.log.Info().Str("op", req.Op).Str("peer", req.ID).Str("remote_addr", c.RemoteAddr().String()).
			Msg("membership change carried out for a follower")
	}
	b, _ := json.Marshal(resp)
	_, _ = c.Write(append(b, '\n'))
}

// readJSONLine decodes one line of at most forwardMaxLine bytes.
func readJSONLine(r io.Reader, v any) error {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, forwardMaxLine)
	}
	line, err := br.ReadSlice('\n')
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
		return err
	}
	if len(line) > forwardMaxLine || errors.Is(err, bufio.ErrBufferFull) {
		return errors.New("line too long")
	}
	return json.Unmarshal(line, v)
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
