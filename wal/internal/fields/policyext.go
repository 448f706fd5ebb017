package fields

import (
	"encoding/binary"

	"github.com/stalkd/stalkd/jobs"
)

// Policy fields that came after the first policy layout, and the policy
// set. Both logs keep writing a policy without such fields in the first
// layout (so an older binary reads it, and old logs read as they always
// did); a policy that has one is written in the extended layout under a
// kind number of its own, which an older binary refuses rather than
// misread:
//
//	extended policy: what AppendPolicy writes (a removal never is
//	        extended), then the extension fields: uvarint n, then n times
//	        uvarint tag, uvarint len, len bytes of value, tags ascending.
//	        Tag 1, overflow: one byte, 1 reject, 2 bury, 3 dead_letter.
//	policy set: uvarint n, then n tubes in ascending name order, each:
//	        uvarint len(tube), tube, the policy's fields as AppendPolicy
//	        writes them after its 1, and the extension fields (n may be 0).
//
// A reader refuses a tag it does not know: a field that changes what a
// policy does must not be dropped silently. A new field takes the next
// tag (policyExtTags), in both logs at once.

// Extension field tags.
const (
	tagOverflow = 1
)

// overflowCode numbers the overflow modes (0: unset, never written).
var overflowCode = map[jobs.Overflow]byte{jobs.OverflowReject: 1, jobs.OverflowBury: 2, jobs.OverflowDeadLetter: 3}

var codeOverflow = [...]jobs.Overflow{1: jobs.OverflowReject, 2: jobs.OverflowBury, 3: jobs.OverflowDeadLetter}

// PolicyExt reports whether a policy record needs the extended layout:
// it sets a policy with a field the first layout lacks.
func PolicyExt(rec *jobs.Record) bool {
	return rec.Policy != nil && rec.Policy.Overflow != ""
}

// AppendPolicyExt appends what an extended policy record carries: what
// AppendPolicy writes, then the extension fields.
func AppendPolicyExt(dst []byte, rec *jobs.Record) []byte {
	dst = AppendPolicy(dst, rec)
	if rec.Policy == nil {
		return dst // not reached: a removal is never extended
	}
	return appendExt(dst, &rec.Policy.Policy)
}

// appendExt appends p's extension fields.
func appendExt(dst []byte, p *jobs.Policy) []byte {
	var n uint64
	if p.Overflow != "" {
		n++
	}
	dst = binary.AppendUvarint(dst, n)
	if p.Overflow != "" {
		dst = binary.AppendUvarint(dst, tagOverflow)
		dst = binary.AppendUvarint(dst, 1)
		dst = append(dst, overflowCode[p.Overflow])
	}
	return dst
}

// PolicyExt reads what AppendPolicyExt writes into r. The caller checks
// Err and the policy's validity.
func (d *Reader) PolicyExt(r *jobs.Record) {
	d.Policy(r)
	if d.Err == nil && r.Policy == nil {
		d.Fail() // a removal is never extended
	}
	if d.Err != nil {
		return
	}
	d.ext(&r.Policy.Policy)
}

// ext reads extension fields into p.
func (d *Reader) ext(p *jobs.Policy) {
	n := d.Uvarint()
	last := uint64(0)
	for i := uint64(0); i < n && d.Err == nil; i++ {
		tag := d.Uvarint()
		val := d.Bytes()
		if d.Err != nil || tag <= last {
			d.Fail()
			return
		}
		last = tag
		switch tag {
		case tagOverflow:
			if len(val) != 1 || int(val[0]) >= len(codeOverflow) || codeOverflow[val[0]] == "" {
				d.Fail()
				return
			}
			p.Overflow = codeOverflow[val[0]]
		default:
			d.Fail()
		}
	}
}

// AppendPolicySet appends what a policy set record (jobs.RecPolicySet)
// carries (see the layout above). rec.Policy must be set.
func AppendPolicySet(dst []byte, rec *jobs.Record) []byte {
	tubes := rec.Policy.Tubes
	dst = binary.AppendUvarint(dst, uint64(len(tubes)))
	for i := range tubes {
		tp := &tubes[i]
		dst = appendString(dst, tp.Tube)
		dst = appendPolicyFields(dst, &tp.PolicyRecord)
		dst = appendExt(dst, &tp.Policy)
	}
	return dst
}

// PolicySetSize is len(AppendPolicySet(nil, rec)).
func PolicySetSize(rec *jobs.Record) int { return len(AppendPolicySet(nil, rec)) }

// PolicySet reads what AppendPolicySet writes into r (the strings are
// copies). The caller checks Err and ValidPolicySet.
func (d *Reader) PolicySet(r *jobs.Record) {
	n := d.Uvarint()
	if d.Err != nil || n > uint64(len(d.B))/13 { // a tube takes at least 13 bytes
		d.Fail()
		return
	}
	set := &jobs.PolicyRecord{Tubes: make([]jobs.TubePolicyRecord, 0, n)}
	for i := uint64(0); i < n && d.Err == nil; i++ {
		tube := string(d.Bytes())
		p := d.policyFields()
		if d.Err != nil {
			return
		}
		d.ext(&p.Policy)
		set.Tubes = append(set.Tubes, jobs.TubePolicyRecord{Tube: tube, PolicyRecord: *p})
	}
	r.Policy = set
}

// ValidPolicySet reports whether a decoded policy set is one the queue
// accepts: tubes in strictly ascending name order, each a valid policy
// record (ValidPolicy).
func ValidPolicySet(r *jobs.Record) bool {
	if r.Policy == nil {
		return false
	}
	for i := range r.Policy.Tubes {
		tp := &r.Policy.Tubes[i]
		if i > 0 && r.Policy.Tubes[i-1].Tube >= tp.Tube {
			return false
		}
		if !ValidPolicy(&jobs.Record{Kind: jobs.RecPolicy, Tube: tp.Tube, Policy: &tp.PolicyRecord}) {
			return false
		}
	}
	return true
}
