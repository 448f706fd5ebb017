package admin

import "github.com/stalkd/stalkd/jobs"

// The strict decoder of a policy lives beside the policy value, in
// jobs/policy (policy.Decode, reached as jobs.DecodePolicy), so that the
// admin API, the daemon's --policies file and stalkctl (which checks a
// file through this API) accept and refuse the same documents with the
// same words. These names keep the package's callers as they were.

// DecodePolicy reads one tube policy in the JSON the admin API takes (the
// fields of jobs.Policy by their json names) and validates it: unknown
// fields at any depth, wrong types and whatever jobs.Policy.Validate
// refuses are a *jobs.PolicyError naming the field. A schedule's last_run
// and next_run, which GET shows, are ignored. Pure, safe for concurrent
// use: jobs.DecodePolicy.
func DecodePolicy(b []byte) (jobs.Policy, error) { return jobs.DecodePolicy(b) }

// PolicyMessage says what is wrong with a refused policy in the API's
// words: "field: reason", or the reason alone when no field is at fault.
// Pure: jobs.PolicyMessage.
func PolicyMessage(err error) string { return jobs.PolicyMessage(err) }
