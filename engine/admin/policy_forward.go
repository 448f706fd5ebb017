package admin

import (
	"errors"
	"net/http"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/jobs/cluster"
)

// PolicyForwarder is what a Cluster may add so that a follower takes tube
// policy changes too: PUT, PATCH and DELETE /v1/tubes/{tube}/policy, asked of a
// follower, go to the leader (the daemon forwards them over the raft port)
// instead of answering 421. Without it a follower answers 421 naming the
// leader, as for every queue endpoint.
//
// Both methods must be safe for concurrent use and block until the change
// is committed (or fails). A refused policy is a *jobs.PolicyError (400
// bad_policy naming the field); an error wrapping cluster.ErrNotLeader
// (no leader could take it) is 421; any other is 503.
type PolicyForwarder interface {
	SetPolicy(tube string, p jobs.Policy) error
	RemovePolicy(tube string) (removed bool, err error)
	// PatchPolicy applies a JSON merge patch (already checked with
	// DecodePatch) to the leader's current policy of tube, atomically there,
	// and returns the policy it left (zero: removed).
	PatchPolicy(tube string, patch []byte) (jobs.Policy, error)
}

// policyForwarder returns the cluster's forwarder when this request, asked
// of a follower, is a policy change it can forward.
func (s *Server) policyForwarder(r *http.Request, segs []string) PolicyForwarder {
	pf, ok := s.opts.Cluster.(PolicyForwarder)
	if !ok || len(segs) != 3 || segs[0] != "tubes" || segs[2] != "policy" ||
		(r.Method != http.MethodPut && r.Method != http.MethodPatch && r.Method != http.MethodDelete) {
		return nil
	}
	return pf
}

// forwardedError answers a forwarded policy change the leader did not make.
func (s *Server) forwardedError(w http.ResponseWriter, err error) {
	var pe *jobs.PolicyError
	switch {
	case errors.As(err, &pe):
		writePolicyError(w, err)
	case errors.Is(err, cluster.ErrNotLeader):
		s.writeNotLeader(w)
	default:
		writeError(w, http.StatusServiceUnavailable, "forward_failed", "the leader did not take the change: "+err.Error())
	}
}
