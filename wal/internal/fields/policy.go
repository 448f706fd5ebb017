package fields

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/stalkd/stalkd/jobs"
)

// AppendPolicy appends what a policy record (jobs.RecPolicy) carries: the
// tube (length, bytes), then 0 for a removal, or 1 and the policy:
// max_reserves (uvarint), dead_letter (length, bytes), max_ready (uvarint),
// reserve_rate (8 bytes, the float64's IEEE bits little endian), the number
// of schedules, and per schedule: cron (length, bytes), body (length,
// bytes), priority (uvarint), ttr (uvarint) and its last fire time
// (varint, Clock ns; rec.Policy.Fired[i], 0 when missing). A schedule's
// time zone travels in its cron string, "CRON_TZ=<tz> <cron>" (cronFold):
// a schedule without one is written as before its field existed, so older
// logs and entries read the same, and no valid cron expression starts so.
func AppendPolicy(dst []byte, rec *jobs.Record) []byte {
	dst = appendString(dst, rec.Tube)
	p := rec.Policy
	if p == nil {
		return append(dst, 0)
	}
	return appendPolicyFields(append(dst, 1), p)
}

// appendPolicyFields appends a policy's fields, from max_reserves to the
// last schedule (see AppendPolicy).
func appendPolicyFields(dst []byte, p *jobs.PolicyRecord) []byte {
	dst = binary.AppendUvarint(dst, uint64(p.MaxReserves))
	dst = appendString(dst, p.DeadLetter)
	dst = binary.AppendUvarint(dst, uint64(p.MaxReady))
	dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(p.ReserveRate))
	dst = binary.AppendUvarint(dst, uint64(len(p.Schedule)))
	for i, s := range p.Schedule {
		dst = appendString(dst, cronFold(s.Cron, s.TZ))
		dst = appendString(dst, s.Body)
		dst = binary.AppendUvarint(dst, uint64(s.Priority))
		dst = binary.AppendUvarint(dst, uint64(s.TTR))
		var fired int64
		if i < len(p.Fired) {
			fired = p.Fired[i]
		}
		dst = binary.AppendVarint(dst, fired)
	}
	return dst
}

// ValidPolicy reports whether a decoded policy record is one the queue
// accepts: a valid tube and, unless it is a removal, a policy that passes
// Validate and does not dead-letter to its own tube.
func ValidPolicy(r *jobs.Record) bool {
	if !jobs.ValidTubeName([]byte(r.Tube)) {
		return false
	}
	return r.Policy == nil || r.Policy.Validate() == nil && r.Policy.DeadLetter != r.Tube
}

// PolicySize is len(AppendPolicy(nil, rec)).
func PolicySize(rec *jobs.Record) int { return len(AppendPolicy(nil, rec)) }

// Policy reads what AppendPolicy writes into r (Tube, Policy, Fired; the
// strings are copies). The caller checks Err and the names' validity.
func (d *Reader) Policy(r *jobs.Record) {
	r.Tube = string(d.Bytes())
	switch d.Byte() {
	case 0:
		return
	case 1:
	default:
		d.Fail()
		return
	}
	r.Policy = d.policyFields()
}

// policyFields reads what appendPolicyFields writes (nil after a failure).
func (d *Reader) policyFields() *jobs.PolicyRecord {
	p := &jobs.PolicyRecord{}
	p.MaxReserves = d.Uint32()
	p.DeadLetter = string(d.Bytes())
	p.MaxReady = d.Uint32()
	if len(d.B) < 8 {
		d.Fail()
		return nil
	}
	p.ReserveRate = math.Float64frombits(binary.LittleEndian.Uint64(d.B))
	d.B = d.B[8:]
	n := d.Uvarint()
	if d.Err != nil || n > uint64(len(d.B))/6 { // a schedule takes at least 6 bytes
		d.Fail()
		return nil
	}
	if n > 0 {
		p.Schedule = make([]jobs.Schedule, n)
		p.Fired = make([]int64, n)
	}
	for i := range p.Schedule {
		s := &p.Schedule[i]
		s.Cron, s.Body = string(d.Bytes()), string(d.Bytes())
		s.Cron, s.TZ = cronUnfold(s.Cron)
		s.Priority, s.TTR = d.Uint32(), d.Uint32()
		p.Fired[i] = d.Varint()
	}
	return p
}

// AppendSched appends the schedule mark of a scheduled put (after its job
// fields): the schedule's number plus one (uvarint) and the time it fired
// for (varint, Clock ns).
func AppendSched(dst []byte, rec *jobs.Record) []byte {
	dst = binary.AppendUvarint(dst, uint64(rec.Sched))
	return binary.AppendVarint(dst, rec.SchedAt)
}

// Sched reads what AppendSched writes; a zero schedule number is malformed.
func (d *Reader) Sched(r *jobs.Record) {
	r.Sched = d.Uint32()
	r.SchedAt = d.Varint()
	if r.Sched == 0 {
		d.Fail()
	}
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

// cronTZ is the prefix that carries a schedule's time zone in its cron
// string (the variable cronie reads for the same purpose).
const cronTZ = "CRON_TZ="

// cronFold returns the cron string a schedule is written with.
func cronFold(cron, tz string) string {
	if tz == "" {
		return cron
	}
	return cronTZ + tz + " " + cron
}

// cronUnfold splits what cronFold wrote.
func cronUnfold(s string) (cron, tz string) {
	rest, ok := strings.CutPrefix(s, cronTZ)
	if !ok {
		return s, ""
	}
	tz, cron, _ = strings.Cut(rest, " ")
	return cron, tz
}
