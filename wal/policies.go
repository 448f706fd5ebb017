package wal

import (
	"fmt"
	"slices"

	"github.com/stalkd/stalkd/jobs"
)

// Tube policies in the log. A policy record (jobs.RecPolicy) holds a tube's
// whole policy and its schedules' progress; the latest one per tube counts.
// A policy set record (jobs.RecPolicySet) holds every tube's at once and
// replaces all that came before it.
// A scheduled put carries the time it stands for, which advances that
// progress when replayed after the policy record. Compaction keeps the
// latest policy records alive by asking the queue to write every policy
// again (RewritePolicies) before it drops a front that holds one.

// policyQueue is what the Log needs of the queue for policies; a queue
// without these methods (a test fake) has none.
type policyQueue interface {
	RestorePolicy(tube string, p jobs.Policy, fired []int64) error
	RewritePolicies() (seq uint64, err error)
}

// imagePolicy is a tube's policy as the log describes it so far.
type imagePolicy struct {
	p     jobs.Policy
	fired []int64
	index uint64 // wal index of its record
}

// applyPolicy folds a policy record at index into the image.
func (m *image) applyPolicy(r *jobs.Record, index uint64) {
	if m.policies == nil {
		m.policies = make(map[string]*imagePolicy)
	}
	if r.Policy == nil {
		delete(m.policies, r.Tube)
		return
	}
	fired := make([]int64, len(r.Policy.Schedule))
	copy(fired, r.Policy.Fired)
	m.policies[r.Tube] = &imagePolicy{p: r.Policy.Clone(), fired: fired, index: index}
}

// applyPolicySet makes a policy set record at index the image's policies:
// exactly its tubes', every other tube's dropped.
func (m *image) applyPolicySet(r *jobs.Record, index uint64) {
	m.policies = make(map[string]*imagePolicy, len(r.Policy.Tubes))
	for i := range r.Policy.Tubes {
		tp := &r.Policy.Tubes[i]
		m.applyPolicy(&jobs.Record{Kind: jobs.RecPolicy, Tube: tp.Tube, Policy: &tp.PolicyRecord}, index)
	}
}

// applySched advances a schedule's progress from a scheduled put.
func (m *image) applySched(tube string, r *jobs.Record) {
	ip := m.policies[tube]
	if ip == nil || int(r.Sched) > len(ip.fired) {
		return // the policy changed or went since: its own record says more
	}
	ip.fired[r.Sched-1] = max(ip.fired[r.Sched-1], r.SchedAt)
}

// policyRecords returns the image's policies as records, by tube name.
func (m *image) policyRecords() []jobs.Record {
	names := make([]string, 0, len(m.policies))
	for name := range m.policies {
		names = append(names, name)
	}
	slices.Sort(names)
	recs := make([]jobs.Record, 0, len(names))
	for _, name := range names {
		ip := m.policies[name]
		recs = append(recs, jobs.Record{Kind: jobs.RecPolicy, Tube: name,
			Policy: &jobs.PolicyRecord{Policy: ip.p, Fired: ip.fired}})
	}
	return recs
}

// restorePolicies hands the image's policies to q, if it takes them.
func restorePolicies(q queue, img *image) (int, error) {
	pq, ok := q.(policyQueue)
	if !ok {
		return 0, nil
	}
	recs := img.policyRecords()
	for _, r := range recs {
		if err := pq.RestorePolicy(r.Tube, r.Policy.Policy, r.Policy.Fired); err != nil {
			return 0, fmt.Errorf("wal: restore the policy of tube %q: %w", r.Tube, err)
		}
	}
	return len(recs), nil
}

// trackPolicy notes where tube's latest policy record is. mu held.
func (l *Log) trackPolicy(rec *jobs.Record, idx uint64) {
	if l.policyAt == nil {
		l.policyAt = make(map[string]uint64)
	}
	if rec.Policy == nil {
		delete(l.policyAt, rec.Tube)
		return
	}
	l.policyAt[rec.Tube] = idx
}

// trackPolicySet notes that a policy set record at idx holds every live
// policy. mu held.
func (l *Log) trackPolicySet(rec *jobs.Record, idx uint64) {
	l.policyAt = make(map[string]uint64, len(rec.Policy.Tubes))
	for _, tp := range rec.Policy.Tubes {
		l.policyAt[tp.Tube] = idx
	}
}

// policyBefore reports whether a live policy record sits before cut.
func (l *Log) policyBefore(cut uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, idx := range l.policyAt {
		if idx < cut {
			return true
		}
	}
	return false
}

// keepPolicies writes every policy again if the front up to cut holds one.
func (l *Log) keepPolicies(q queue, cut uint64) bool {
	pq, ok := q.(policyQueue)
	if !ok || !l.policyBefore(cut) {
		return true
	}
	_, err := pq.RewritePolicies()
	return err == nil
}
