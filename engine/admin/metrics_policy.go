package admin

import (
	"cmp"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stalkd/stalkd/jobs"
)

// The series of tube policies (jobs/POLICIES.md). They are read at scrape
// time from the counters each policy keeps (jobs.Queue.PolicyStats):
// nothing is added to the command path. They belong to the policy, not the
// tube: a policy whose tube is empty and gone, or does not exist yet,
// keeps its series. Policies are the operator's, not the clients', but
// their number is capped all the same, by Options.MetricsMaxTubes (the
// policies with the most counted events are kept, ties by name;
// stalkd_policies_truncated says so).
var (
	dTubeDeadLettered = desc("tube_dead_lettered_total",
		"Jobs that reached the tube's max_reserves and moved to its dead_letter tube (or were buried).", "tube")
	dTubeRefusedFull = desc("tube_refused_full_total",
		"Puts refused with OUT_OF_MEMORY because the tube held max_ready ready or delayed jobs (overflow reject, or a full dead-letter tube).", "tube")
	dTubeOverflowed = desc("tube_overflowed_total",
		"Puts over the tube's max_ready stored anyway by its overflow mode: buried (bury) or in the dead-letter tube (dead_letter).", "tube")
	dTubeRateWaits = desc("tube_rate_limited_waits_total",
		"Reserves that had to wait because the tube's reserve_rate was spent.", "tube")
	dTubeScheduled = desc("tube_scheduled_puts_total",
		"Jobs put by the tube's schedule.", "tube")
	dPolicies          = desc("policies", "Tube names that have a policy (whether or not the tube exists).")
	dPoliciesTruncated = desc("policies_truncated", "1 when more policies exist than get series (--metrics-max-tubes).")
)

func init() {
	allDescs = append(allDescs, dTubeDeadLettered, dTubeRefusedFull, dTubeOverflowed, dTubeRateWaits,
		dTubeScheduled, dPolicies, dPoliciesTruncated)
}

// policies adds the policy series: one set per policy, capped.
func (c *collector) policies(ch chan<- prometheus.Metric, q *jobs.Queue) {
	ps, truncated := capPolicies(q.PolicyStats(), c.s.opts.MetricsMaxTubes)
	for i := range ps {
		p := &ps[i]
		counter(ch, dTubeDeadLettered, float64(p.DeadLettered), p.Tube)
		counter(ch, dTubeRefusedFull, float64(p.RefusedFull), p.Tube)
		counter(ch, dTubeOverflowed, float64(p.Overflowed), p.Tube)
		counter(ch, dTubeRateWaits, float64(p.RateLimitedWaits), p.Tube)
		counter(ch, dTubeScheduled, float64(p.ScheduledPuts), p.Tube)
	}
	gauge(ch, dPolicies, float64(len(ps)+truncated))
	gauge(ch, dPoliciesTruncated, b2f(truncated > 0))
}

// capPolicies keeps at most limit policies (negative: all), those with the
// most counted events first, ties by name; it returns them and how many
// it left out.
func capPolicies(ps []jobs.PolicyStat, limit int) ([]jobs.PolicyStat, int) {
	if limit < 0 || len(ps) <= limit {
		return ps, 0
	}
	events := func(p *jobs.PolicyStat) uint64 {
		return p.DeadLettered + p.RefusedFull + p.Overflowed + p.RateLimitedWaits + p.ScheduledPuts
	}
	slices.SortStableFunc(ps, func(a, b jobs.PolicyStat) int { return cmp.Compare(events(&b), events(&a)) })
	return ps[:limit], len(ps) - limit
}
