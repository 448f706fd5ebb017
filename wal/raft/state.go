package raft

import (
	"slices"

	"github.com/stalkd/stalkd/jobs"
)

// state is the replicated image of the queue: the latest whole record of
// every live job (a put record whose fields were updated by every later
// record of the job) and the highest job id ever logged. Records are never
// modified once stored (an update stores a new one), so a snapshot may keep
// the pointers it copied while the state moves on. Guarded by fsm.mu.
type state struct {
	jobs    map[uint64]*jobs.Record
	maxID   uint64
	orphans uint64 // updates and deletes of jobs not in the state (never expected)
	// announced: where each node last served clients as leader (announce.go).
	announced map[string]announce
	// pauses: the latest pause of each tube (RecPause records), dropped
	// once a later pause starts after it ended.
	pauses map[string]jobs.Record
	// policies: the latest policy record of each tube, its Fired advanced
	// by the scheduled puts applied since (a record of its own, never
	// modified once stored: a snapshot may hold it).
	policies map[string]*jobs.Record
}

func newState() state {
	return state{jobs: make(map[uint64]*jobs.Record), announced: make(map[string]announce),
		pauses: make(map[string]jobs.Record), policies: make(map[string]*jobs.Record)}
}

// apply applies one committed record. rec's Tube and Body must be owned by
// the caller (decodeEntry copies them).
func (s *state) apply(rec *jobs.Record) {
	s.maxID = max(s.maxID, rec.ID)
	switch rec.Kind {
	case jobs.RecPause:
		start := rec.Deadline - int64(rec.Delay)
		for name, p := range s.pauses {
			if p.Deadline < start {
				delete(s.pauses, name)
			}
		}
		s.pauses[rec.Tube] = *rec
	case jobs.RecPolicy:
		s.applyPolicy(rec)
	case jobs.RecPolicySet:
		s.policies = make(map[string]*jobs.Record, len(rec.Policy.Tubes))
		for i := range rec.Policy.Tubes {
			tp := &rec.Policy.Tubes[i]
			s.applyPolicy(&jobs.Record{Kind: jobs.RecPolicy, Tube: tp.Tube, Policy: &tp.PolicyRecord})
		}
	case jobs.RecPut:
		r := *rec
		s.jobs[rec.ID] = &r
		if rec.Sched != 0 {
			s.advanceSchedule(rec)
		}
	case jobs.RecUpdate:
		old := s.jobs[rec.ID]
		if old == nil {
			s.orphans++
			return
		}
		r := *rec
		r.Kind, r.Tube, r.Body, r.Dead = jobs.RecPut, old.Tube, old.Body, old.Dead // an update carries no dead letter
		s.jobs[rec.ID] = &r
	case jobs.RecDelete:
		s.remove(rec.ID)
	case jobs.RecClear:
		for _, id := range rec.IDs {
			s.remove(id)
		}
	}
}

// applyPolicy keeps a copy of policy record rec as its tube's latest (or
// drops the tube's for a removal).
func (s *state) applyPolicy(rec *jobs.Record) {
	if rec.Policy == nil {
		delete(s.policies, rec.Tube)
		return
	}
	r := *rec
	pr := *rec.Policy
	pr.Fired = make([]int64, len(pr.Schedule))
	copy(pr.Fired, rec.Policy.Fired)
	r.Policy = &pr
	s.policies[rec.Tube] = &r
}

// advanceSchedule notes that a scheduled put stands for its schedule's
// time rec.SchedAt.
func (s *state) advanceSchedule(rec *jobs.Record) {
	p := s.policies[rec.Tube]
	if p == nil || int(rec.Sched) > len(p.Policy.Fired) || p.Policy.Fired[rec.Sched-1] >= rec.SchedAt {
		return
	}
	pr := *p.Policy
	pr.Fired = append([]int64(nil), pr.Fired...)
	pr.Fired[rec.Sched-1] = rec.SchedAt
	r := *p
	r.Policy = &pr
	s.policies[rec.Tube] = &r
}

func (s *state) remove(id uint64) {
	if _, ok := s.jobs[id]; !ok {
		s.orphans++
		return
	}
	delete(s.jobs, id)
}

// records returns the job records, by id (the order jobs were put, which
// restores buried lists in their order).
func (s *state) records() []*jobs.Record {
	out := make([]*jobs.Record, 0, len(s.jobs))
	for _, r := range s.jobs {
		out = append(out, r)
	}
	sortByID(out)
	return out
}

func sortByID(recs []*jobs.Record) {
	slices.SortFunc(recs, func(a, b *jobs.Record) int {
		switch {
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
}

// restoreInto hands every job to q (created in replicated mode, not yet
// serving) and makes q's ids continue above the highest id ever logged.
func (s *state) restoreInto(q *jobs.Queue) error {
	for _, r := range s.records() {
		if err := q.Restore(*r); err != nil {
			return err
		}
	}
	for _, p := range s.pauses {
		if err := q.RestorePause(p.Tube, p.Delay, p.Deadline); err != nil {
			return err
		}
	}
	for _, p := range s.policies {
		if err := q.RestorePolicy(p.Tube, p.Policy.Policy, p.Policy.Fired); err != nil {
			return err
		}
	}
	q.EnsureNextID(s.maxID + 1)
	return nil
}
