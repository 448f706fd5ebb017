package admin

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/stalkd/stalkd/jobs"
)

// The per-tube series of tube policies (jobs/POLICIES.md): how often each
// tube's policy acted. Like the other per-tube series they exist only for
// the tubes kept under Options.MetricsMaxTubes, and they are read at scrape
// time from counters the queue keeps in TubeStats anyway: nothing is added
// to the command path.
var (
	dTubeDeadLettered = desc("tube_dead_lettered_total",
		"Jobs that reached the tube's max_reserves and moved to its dead_letter tube (or were buried).", "tube")
	dTubeRefusedFull = desc("tube_refused_full_total",
		"Puts refused with QUEUE_FULL because the tube held max_ready ready or delayed jobs.", "tube")
	dTubeRateWaits = desc("tube_rate_limited_waits_total",
		"Reserves that had to wait because the tube's reserve_rate was spent.", "tube")
	dTubeScheduled = desc("tube_scheduled_puts_total",
		"Jobs put by the tube's schedule.", "tube")
	dPolicies = desc("policies", "Tube names that have a policy (whether or not the tube exists).")
)

func init() {
	allDescs = append(allDescs, dTubeDeadLettered, dTubeRefusedFull, dTubeRateWaits, dTubeScheduled, dPolicies)
}

// policyCounters adds one tube's policy counters.
func policyCounters(ch chan<- prometheus.Metric, t *jobs.TubeInfo) {
	counter(ch, dTubeDeadLettered, float64(t.DeadLettered), t.Name)
	counter(ch, dTubeRefusedFull, float64(t.RefusedFull), t.Name)
	counter(ch, dTubeRateWaits, float64(t.RateLimitedWaits), t.Name)
	counter(ch, dTubeScheduled, float64(t.ScheduledPuts), t.Name)
}

// policyCount adds the number of policies.
func policyCount(ch chan<- prometheus.Metric, q *jobs.Queue) {
	gauge(ch, dPolicies, float64(len(q.Policies())))
}
