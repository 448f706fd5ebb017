package admin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// Cluster is what a replicated cluster member (the daemon's adapter around
// package wal/raft's Node) gives the admin listener: its view of the
// cluster, the queue while it leads, and membership changes. With
// Options.Cluster set, the queue endpoints read Queue() per request and
// answer 421 not_leader on a follower (but a policy change goes to the
// leader when the Cluster is a PolicyForwarder); /v1/cluster shows the Status, and
// /v1/cluster/voters and /v1/cluster/servers/{id} change the membership:
// the daemon's Cluster carries a change out on the leader, forwarding it
// there when asked of a follower, and the answer is this node's Status
// once it shows the change. When the change cannot reach a leader (none is
// known) the answer is 421 naming the leader the Status knows, if any.
//
// Every method must be safe for concurrent use. AddVoter and RemoveServer
// block until the change is committed (or fails); they return an error
// wrapping cluster.ErrNotLeader when no leader could take it.
type Cluster interface {
	Status() cluster.Status
	// Queue is the queue this node serves while it leads; nil otherwise.
	Queue() *jobs.Queue
	AddVoter(id, addr string) error
	RemoveServer(id string) error
}

// notLeaderErr is the 421 body: the usual error shape plus the leader.
type notLeaderErr struct {
	Error struct {
		Code       string `json:"code"`
		Message    string `json:"message"`
		Leader     string `json:"leader"`
		LeaderAddr string `json:"leader_addr"`
	} `json:"error"`
}

// writeNotLeader answers 421 Misdirected Request, naming the leader (its
// id and raft address; the client must know its admin address).
func (s *Server) writeNotLeader(w http.ResponseWriter) {
	st := s.opts.Cluster.Status()
	var e notLeaderErr
	e.Error.Code = "not_leader"
	e.Error.Leader, e.Error.LeaderAddr = st.Leader, st.LeaderAddr
	if st.Leader == "" {
		e.Error.Message = "this node is not the leader, and no leader is known"
	} else {
		e.Error.Message = fmt.Sprintf("this node is not the leader; ask %s (raft address %s)", st.Leader, st.LeaderAddr)
	}
	writeJSON(w, http.StatusMisdirectedRequest, e)
}

// GET /v1/cluster.
func (s *Server) getCluster(w http.ResponseWriter, r *http.Request, _ []string) {
	st := s.opts.Cluster.Status()
	if st.Servers == nil {
		st.Servers = []cluster.Server{}
	}
	writeJSON(w, http.StatusOK, st)
}

// voterReq is POST /v1/cluster/voters' body.
type voterReq struct {
	ID   string `json:"id"`
	Addr string `json:"addr"`
}

// POST /v1/cluster/voters {"id": "n4", "addr": "10.0.0.4:11310"}.
func (s *Server) addVoter(w http.ResponseWriter, r *http.Request, _ []string) {
	var req voterReq
	dec := json.NewDecoder(io.LimitReader(r.Body, 4096))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "bad_body", "want a JSON body {\"id\": ..., \"addr\": \"host:port\"}")
		return
	}
	if req.ID == "" || !strings.Contains(req.Addr, ":") {
		writeError(w, http.StatusBadRequest, "bad_body", "id and addr (host:port of its raft transport) are required")
		return
	}
	if err := s.opts.Cluster.AddVoter(req.ID, req.Addr); err != nil {
		s.membershipError(w, err)
		return
	}
	s.log.Info().Str("peer", req.ID).Str("peer_addr", req.Addr).Msg("voter added through the API")
	s.getCluster(w, r, nil)
}

// DELETE /v1/cluster/servers/{id}.
func (s *Server) removeServer(w http.ResponseWriter, r *http.Request, args []string) {
	id := args[0]
	known := false
	for _, sv := range s.opts.Cluster.Status().Servers {
		known = known || sv.ID == id
	}
	if !known {
		writeError(w, http.StatusNotFound, "not_found", "no server "+id+" in the cluster's configuration")
		return
	}
	if err := s.opts.Cluster.RemoveServer(id); err != nil {
		s.membershipError(w, err)
		return
	}
	s.log.Info().Str("peer", id).Msg("server removed through the API")
	s.getCluster(w, r, nil)
}

func (s *Server) membershipError(w http.ResponseWriter, err error) {
	if errors.Is(err, cluster.ErrNotLeader) {
		s.writeNotLeader(w)
		return
	}
	writeError(w, http.StatusServiceUnavailable, "membership_change_failed", err.Error())
}
