package admin

import (
	"cmp"
	"slices"

	"github.com/stalkd/stalkd/jobs"
)

// tubeSet is the tubes shown (in /metrics and /v1/tubes), capped.
type tubeSet struct {
	tubes     []jobs.TubeInfo // sorted by name
	total     int             // live tubes
	truncated bool            // some were left out
}

// selectTubes reads every tube and keeps at most limit of them (limit < 0:
// all): the largest by jobs in any state, ties broken by name, so that
// the tubes an operator most needs to see survive the cap and the choice
// is stable between scrapes. The oldest-ready scan runs only for the tubes
// kept.
func selectTubes(q *jobs.Queue, limit int) tubeSet {
	var all []jobs.TubeInfo
	if limit < 0 || q.Stats().Tubes <= limit {
		all = q.Inspect(nil, jobs.InspectOptions{Oldest: true}) // one pass
	} else {
		all = q.Inspect(nil, jobs.InspectOptions{})
	}
	ts := tubeSet{total: len(all)}
	if limit < 0 || len(all) <= limit {
		ts.tubes = sortByName(all)
		return ts
	}
	slices.SortFunc(all, func(a, b jobs.TubeInfo) int {
		if c := cmp.Compare(b.Total(), a.Total()); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	keep := make(map[string]struct{}, limit)
	for _, t := range all[:limit] {
		keep[t.Name] = struct{}{}
	}
	kept := all[:0]
	for _, t := range q.Inspect(nil, jobs.InspectOptions{Oldest: true, OnlyOldest: func(n string) bool {
		_, ok := keep[n]
		return ok
	}}) {
		if _, ok := keep[t.Name]; ok {
			kept = append(kept, t)
		}
	}
	ts.tubes = sortByName(kept)
	ts.truncated = true
	return ts
}

func sortByName(t []jobs.TubeInfo) []jobs.TubeInfo {
	slices.SortFunc(t, func(a, b jobs.TubeInfo) int { return cmp.Compare(a.Name, b.Name) })
	return t
}
