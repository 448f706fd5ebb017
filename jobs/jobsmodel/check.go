package jobsmodel

import (
	"errors"
	"fmt"
	"slices"
)

// recentIDs is how many of the latest ids Check looks up even when the
// model has no such job (deleted, spent, refused): the queue must not
// have one either. maxJobChecks bounds how many live jobs one Check
// compares: a big queue is covered over several steps, in turn, so that a
// tape of many puts does not cost time quadratic in its length.
const (
	recentIDs    = 16
	maxJobChecks = 48
)

// Check compares everything observable of the queue with the model: each
// session's wakes, wait state, used tube and watch list; Stats; the tube
// list and every tube's stats; the stats of every live and recent job.
func (h *Harness) Check() error {
	for i, sl := range h.slots {
		m := h.M.sessions[sl.id]
		if *sl.wakes != m.wakes {
			return fmt.Errorf("slot %d woken %d times, want %d", i, *sl.wakes, m.wakes)
		}
		if got, want := sl.s.Waiting(), m.state != idle; got != want {
			return fmt.Errorf("slot %d waiting %v, want %v", i, got, want)
		}
		if got, want := sl.s.Used(), m.use; got != want {
			return fmt.Errorf("slot %d uses %q, want %q", i, got, want)
		}
		if got, want := sl.s.Watched(nil), m.watch; !slices.Equal(got, want) {
			return fmt.Errorf("slot %d watches %q, want %q", i, got, want)
		}
	}
	if got, want := h.Q.Stats(), h.M.Stats(); got != want {
		return fmt.Errorf("stats:\n got %+v\nwant %+v", got, want)
	}
	names := h.M.ListTubes()
	if got := h.Q.ListTubes(nil); !slices.Equal(got, names) {
		return fmt.Errorf("tubes %q, want %q", got, names)
	}
	for _, name := range append(names, "nope") {
		got, gerr := h.Q.StatsTube([]byte(name))
		want, werr := h.M.StatsTube(name)
		if got != want || !errors.Is(gerr, werr) {
			return fmt.Errorf("stats-tube %q:\n got %+v %v\nwant %+v %v", name, got, gerr, want, werr)
		}
	}
	ids := h.M.LiveIDs()
	if n := len(ids); n > maxJobChecks {
		h.checks++
		window := make([]uint64, maxJobChecks)
		for i := range window {
			window[i] = ids[(h.checks*maxJobChecks+i)%n]
		}
		ids = window
	}
	for id := h.M.MaxID() + 1; id > 0 && id+recentIDs > h.M.MaxID(); id-- {
		ids = append(ids, id)
	}
	for _, id := range ids {
		got, gerr := h.Q.StatsJob(id)
		want, werr := h.M.StatsJob(id)
		if got != want || !errors.Is(gerr, werr) {
			return fmt.Errorf("stats-job %d:\n got %+v %v\nwant %+v %v", id, got, gerr, want, werr)
		}
	}
	return nil
}
