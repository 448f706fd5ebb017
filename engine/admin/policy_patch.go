package admin

import (
	"errors"
	"mime"
	"net/http"
	"strconv"

	"github.com/stalkd/stalkd/jobs"
)

// PATCH /v1/tubes/{tube}/policy takes a JSON merge patch (RFC 7386): the
// fields it names are set, a null removes one, the others stay. It is
// served by putPolicy, the handler of PUT, so that every rule of a policy
// change applies to both; the patch is applied by the queue under its
// policy lock (jobs.Queue.UpdatePolicySeq with jobs.MergePolicyPatch), on
// the leader when a follower forwards it: never read, merged and written
// back across the network. PUT ?dry_run=true checks a policy and answers
// what would be set, changing nothing (stalkctl policy apply checks a
// whole file first).

// mergePatchType is the media type of a JSON merge patch (RFC 7386).
const mergePatchType = "application/merge-patch+json"

// patchTypeRefusal says why a PATCH's Content-Type is refused, or "".
// A merge patch may come as application/merge-patch+json or
// application/json (or with no type at all).
func patchTypeRefusal(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	switch {
	case err != nil:
		return "the Content-Type is not a media type: send " + mergePatchType
	case mt == mergePatchType, mt == "application/json":
		return ""
	case mt == "application/json-patch+json":
		return "JSON Patch (RFC 6902) is not supported: send a JSON merge patch (RFC 7386) as " + mergePatchType
	}
	return "a policy patch is a JSON merge patch: send it as " + mergePatchType + " (not " + mt + ")"
}

// DecodePatch checks a JSON merge patch of a policy as far as it can
// without the policy it applies to: one JSON object, every key a policy
// field (an unknown one is refused at any depth, naming it), every value
// of the field's type or null. The result of applying it is validated by
// jobs.MergePolicyPatch. Errors are *jobs.PolicyError, as DecodePolicy's.
// Pure, safe for concurrent use.
func DecodePatch(b []byte) error {
	_, err := decodeFields(b)
	return err
}

// patchPolicy is PUT's handler past reading the body, for PATCH.
func (s *Server) patchPolicy(w http.ResponseWriter, r *http.Request, name string, b []byte) {
	if reason := patchTypeRefusal(r); reason != "" {
		writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", reason)
		return
	}
	if err := DecodePatch(b); err != nil {
		writePolicyError(w, err)
		return
	}
	if s.fwd != nil {
		p, err := s.fwd.PatchPolicy(name, b)
		if err != nil {
			s.forwardedError(w, err)
			return
		}
		s.logAction(r, "patch-policy").Str("tube", name).Msg("admin patched a tube policy through the leader")
		writeJSON(w, http.StatusOK, p)
		return
	}
	p, seq, err := s.q.UpdatePolicySeq(name, func(cur jobs.Policy, _ bool) (jobs.Policy, error) {
		return jobs.MergePolicyPatch(cur, b)
	})
	if err != nil {
		s.policyError(w, err)
		return
	}
	if !s.committed(r.Context(), w, seq) {
		return
	}
	s.logAction(r, "patch-policy").Str("tube", name).Msg("admin patched a tube policy")
	writeJSON(w, http.StatusOK, p) // the policy this call left (a later call may have changed it since)
}

// dryRun reports whether r asks only to check (?dry_run=true).
func dryRun(r *http.Request) bool {
	v, err := strconv.ParseBool(r.URL.Query().Get("dry_run"))
	return err == nil && v
}

// dryRunHeader marks a dry run's answer, so that a client can tell it from
// a server that ignored ?dry_run and set the policy.
const dryRunHeader = "Stalkd-Dry-Run"

// checkPolicy answers a dry run of PUT: the policy it would set, or why
// not. Checked on this node, leader or follower: the rules need no queue.
func checkPolicy(w http.ResponseWriter, name string, p jobs.Policy) {
	w.Header().Set(dryRunHeader, "true")
	if err := jobs.CheckPolicy(name, p); err != nil {
		var pe *jobs.PolicyError
		if errors.As(err, &pe) {
			writePolicyError(w, err)
			return
		}
		writeError(w, http.StatusBadRequest, "bad_policy", err.Error())
		return
	}
	writeJSON(w, http.StatusOK, p)
}
