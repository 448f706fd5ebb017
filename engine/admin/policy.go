package admin

import (
	"errors"
	"io"
	"net/http"

	"github.com/stalkd/stalkd/jobs"
)

// Tube policies (per-tube rules the queue enforces: jobs/POLICIES.md)
// through the API:
//
//	GET    /v1/policies               {"policies": {tube: policy, ...}}
//	GET    /v1/tubes/{tube}/policy    the policy; 404 no_policy
//	PUT    /v1/tubes/{tube}/policy    replace it with the body's; 200 and the policy
//	                                  (?dry_run=true: check it, change nothing)
//	PATCH  /v1/tubes/{tube}/policy    merge the body into it (RFC 7386; policy_patch.go)
//	DELETE /v1/tubes/{tube}/policy    remove it; 404 no_policy
//
// A policy belongs to a tube name, so the tube need not exist. PUT and
// DELETE are mutating calls (allowMutation) and answer once the change is
// committed; on a cluster follower they go to the leader when the Cluster
// is a PolicyForwarder (else 421 naming the leader). A bad body is 400
// bad_policy naming the field (error.field); nothing of it is applied.

// maxPolicyBody bounds a PUT body: a policy is small, but its schedule
// holds job bodies.
const maxPolicyBody = 1 << 20

// policyErr is the 400 body of a refused policy: the usual error shape
// plus the field at fault ("" when the body as a whole is wrong).
type policyErr struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Field   string `json:"field"`
	} `json:"error"`
}

func writePolicyError(w http.ResponseWriter, err error) {
	var e policyErr
	e.Error.Code = "bad_policy"
	e.Error.Message = PolicyMessage(err)
	var pe *jobs.PolicyError
	if errors.As(err, &pe) {
		e.Error.Field = pe.Field
	}
	writeJSON(w, http.StatusBadRequest, e)
}

// policiesJSON is GET /v1/policies: the shape of the daemon's --policies
// file under one key, and beside it each policy's counters and whether its
// tube exists (a policy outlives its tube and may come before it).
type policiesJSON struct {
	Policies map[string]jobs.Policy   `json:"policies"`
	Counters map[string]policyCounter `json:"counters,omitempty"`
}

// policyCounter is one policy's entry in /v1/policies' counters.
type policyCounter struct {
	policyCounts
	TubeExists bool `json:"tube_exists"`
}

// GET /v1/policies.
func (s *Server) getPolicies(w http.ResponseWriter, _ *http.Request, _ []string) {
	stats := s.q.PolicyStats()
	out := policiesJSON{Policies: make(map[string]jobs.Policy, len(stats)),
		Counters: make(map[string]policyCounter, len(stats))}
	live := make(map[string]bool)
	for _, name := range s.q.ListTubes(nil) {
		live[name] = true
	}
	for _, p := range stats {
		out.Policies[p.Tube] = p.Policy
		out.Counters[p.Tube] = policyCounter{policyCounts: countsOf(p.PolicyCounts), TubeExists: live[p.Tube]}
	}
	writeJSON(w, http.StatusOK, out)
}

// policyTube checks a tube name argument, writing 400 if it is not one.
func policyTube(w http.ResponseWriter, name string) bool {
	if !jobs.ValidTubeName([]byte(name)) {
		writeError(w, http.StatusBadRequest, "bad_tube_name", "not a valid tube name")
		return false
	}
	return true
}

func writeNoPolicy(w http.ResponseWriter) {
	writeError(w, http.StatusNotFound, "no_policy", "the tube has no policy")
}

// GET /v1/tubes/{tube}/policy.
func (s *Server) getPolicy(w http.ResponseWriter, _ *http.Request, args []string) {
	if !policyTube(w, args[0]) {
		return
	}
	v := s.policyViewOf(args[0])
	if v == nil {
		writeNoPolicy(w)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// PUT /v1/tubes/{tube}/policy: the body is the whole new policy. PATCH
// (a merge patch) is served here too, past reading the body.
func (s *Server) putPolicy(w http.ResponseWriter, r *http.Request, args []string) {
	name := args[0]
	if !policyTube(w, name) {
		return
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPolicyBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeError(w, http.StatusRequestEntityTooLarge, "too_large", "a policy body is at most 1 MiB")
		return
	case err != nil:
		writeError(w, http.StatusBadRequest, "bad_body", "reading the body: "+err.Error())
		return
	}
	if r.Method == http.MethodPatch {
		s.patchPolicy(w, r, name, b)
		return
	}
	p, err := DecodePolicy(b)
	if err != nil {
		writePolicyError(w, err)
		return
	}
	if dryRun(r) {
		checkPolicy(w, name, p)
		return
	}
	if s.fwd != nil {
		if err := s.fwd.SetPolicy(name, p); err != nil {
			s.forwardedError(w, err)
			return
		}
		s.logAction(r, "set-policy").Str("tube", name).Msg("admin set a tube policy through the leader")
		writeJSON(w, http.StatusOK, p)
		return
	}
	seq, err := s.q.SetPolicySeq(name, p)
	if err != nil {
		s.policyError(w, err)
		return
	}
	if !s.committed(r.Context(), w, seq) {
		return
	}
	s.logAction(r, "set-policy").Str("tube", name).Msg("admin set a tube policy")
	writeJSON(w, http.StatusOK, p) // what this call set (a later call may have changed it since)
}

// DELETE /v1/tubes/{tube}/policy.
func (s *Server) deletePolicy(w http.ResponseWriter, r *http.Request, args []string) {
	name := args[0]
	if !policyTube(w, name) {
		return
	}
	var removed bool
	var seq uint64
	var err error
	if s.fwd != nil {
		if removed, err = s.fwd.RemovePolicy(name); err != nil {
			s.forwardedError(w, err)
			return
		}
	} else if removed, seq, err = s.q.RemovePolicySeq(name); err != nil {
		s.policyError(w, err)
		return
	}
	if !removed {
		writeNoPolicy(w)
		return
	}
	if s.fwd != nil || s.committed(r.Context(), w, seq) { // forwarded: committed on return
		s.logAction(r, "remove-policy").Str("tube", name).Msg("admin removed a tube policy")
		writeJSON(w, http.StatusOK, map[string]any{"tube": name, "removed": true})
	}
}

// policyError answers a refusal of SetPolicy or RemovePolicy.
func (s *Server) policyError(w http.ResponseWriter, err error) {
	var pe *jobs.PolicyError
	switch {
	case errors.As(err, &pe):
		writePolicyError(w, err)
	case errors.Is(err, jobs.ErrBadTubeName):
		writeError(w, http.StatusBadRequest, "bad_tube_name", "not a valid tube name")
	default:
		s.queueError(w, err, "tube")
	}
}

// policyFigures are a tube's policy and policy counters in /v1/tubes and
// /v1/tubes/{tube} (embedded in tubeJSON).
type policyFigures struct {
	policyCounts
	Policy *policyView `json:"policy,omitempty"` // with its schedules' runs
}

// policyCounts are a policy's counters in the API (jobs.PolicyCounts): in
// a tube's figures, and per policy in /v1/policies.
type policyCounts struct {
	DeadLettered     uint64 `json:"dead_lettered"`
	RefusedFull      uint64 `json:"refused_full"`
	Overflowed       uint64 `json:"overflowed"`
	RateLimitedWaits uint64 `json:"rate_limited_waits"`
	ScheduledPuts    uint64 `json:"scheduled_puts"`
}

func countsOf(c jobs.PolicyCounts) policyCounts {
	return policyCounts{DeadLettered: c.DeadLettered, RefusedFull: c.RefusedFull, Overflowed: c.Overflowed,
		RateLimitedWaits: c.RateLimitedWaits, ScheduledPuts: c.ScheduledPuts}
}

func policyFiguresOf(t *jobs.TubeInfo) policyFigures {
	return policyFigures{policyCounts: countsOf(t.PolicyCounts)}
}

// addPolicies sets the policy of each listed tube that has one, with its
// schedules' runs (one read of the policies for the whole list, then one
// per tube that has a policy).
func (s *Server) addPolicies(ts []tubeJSON) {
	ps := s.q.Policies()
	for i := range ts {
		if _, ok := ps[ts[i].Name]; ok {
			ts[i].Policy = s.policyViewOf(ts[i].Name)
		}
	}
}
