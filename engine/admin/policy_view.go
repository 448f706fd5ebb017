package admin

import (
	"reflect"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// A policy as the API shows one tube's: the policy's own fields, and each
// schedule with when it last fired and next fires (GET
// /v1/tubes/{tube}/policy, and the policy inside /v1/tubes and
// /v1/tubes/{tube}, which the dashboard shows). last_run and next_run are
// read-only: PUT and PATCH ignore them, so a policy read can be sent back
// as it is. GET /v1/policies keeps the --policies file's shape, without
// them.

// policyView is a policy with its schedules' runs. The embedded Policy
// brings every field of the policy; Schedule, shallower, takes the place
// of its schedule list.
type policyView struct {
	jobs.Policy
	Schedule []scheduleView `json:"schedule,omitempty"`
}

// scheduleView is one schedule and its runs: RFC 3339 times in the
// schedule's zone; last_run null until it first fires, next_run null
// never for a valid schedule.
type scheduleView struct {
	jobs.Schedule
	LastRun *time.Time `json:"last_run"`
	NextRun *time.Time `json:"next_run"`
}

// readOnlyField reports whether key, met in a decoded object of Go type t,
// is one the API shows but does not take (DecodePolicy skips it).
func readOnlyField(t reflect.Type, key string) bool {
	return t == reflect.TypeFor[jobs.Schedule]() && (key == "last_run" || key == "next_run")
}

// viewOf joins a policy and its runs (PolicyRuns' answer).
func viewOf(p jobs.Policy, runs []jobs.ScheduleRun) *policyView {
	v := &policyView{Policy: p}
	for i, sc := range p.Schedule {
		sv := scheduleView{Schedule: sc}
		if i < len(runs) {
			sv.LastRun, sv.NextRun = timeOrNil(runs[i].Last), timeOrNil(runs[i].Next)
		}
		v.Schedule = append(v.Schedule, sv)
	}
	return v
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// policyViewOf returns the view of tube's policy, or nil if it has none.
func (s *Server) policyViewOf(tube string) *policyView {
	p, runs, ok := s.q.PolicyRuns(tube)
	if !ok {
		return nil
	}
	return viewOf(p, runs)
}
