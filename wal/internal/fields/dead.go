package fields

import (
	"encoding/binary"

	"github.com/stalkd/stalkd/jobs"
)

// The dead-letter mark of a put whose job moved into a
// dead-letter tube, written after its job fields by both logs (each under a
// kind number of its own):
//
//	uvarint sched (0: not a scheduled put), and if not 0 varint schedAt
//	uvarint len(origin), origin
//	byte reason (the format's numbers: ReasonCode)
//	varint at (Clock ns: when it moved)
//
// A scheduled put can overflow into a dead-letter tube, so the schedule's
// mark has its place here too.

// reasonCodes are the formats' own numbers for jobs' reasons: pinned here,
// not jobs' enum values, so reordering the enum cannot change what a log
// means. A new reason (issue 31's expired) adds a row; a reader refuses a
// byte it does not know, so an older binary never misreads a newer log.
var reasonCodes = map[jobs.DeadReason]byte{
	jobs.DeadReleased: 1,
	jobs.DeadTimedOut: 2,
	jobs.DeadOverflow: 3,
}

// ReasonCode is the formats' byte for r; ok is false for a reason the
// formats do not know.
func ReasonCode(r jobs.DeadReason) (b byte, ok bool) {
	b, ok = reasonCodes[r]
	return b, ok
}

// ReasonOf is the reason of the formats' byte b; ok is false for an
// unknown byte.
func ReasonOf(b byte) (jobs.DeadReason, bool) {
	for r, c := range reasonCodes {
		if c == b {
			return r, true
		}
	}
	return 0, false
}

// AppendDead appends rec's dead-letter mark (rec.Dead must be set).
func AppendDead(dst []byte, rec *jobs.Record) []byte {
	dst = binary.AppendUvarint(dst, uint64(rec.Sched))
	if rec.Sched != 0 {
		dst = binary.AppendVarint(dst, rec.SchedAt)
	}
	dst = appendString(dst, rec.Dead.Origin)
	code, _ := ReasonCode(rec.Dead.Reason) // 0, refused by every reader, for a reason unknown here
	dst = append(dst, code)
	return binary.AppendVarint(dst, rec.Dead.At)
}

// DeadSize is the length of what AppendDead writes for rec.
func DeadSize(rec *jobs.Record) int {
	n := uvarintLen(uint64(rec.Sched))
	if rec.Sched != 0 {
		n += uvarintLen(zigzag(rec.SchedAt))
	}
	return n + uvarintLen(uint64(len(rec.Dead.Origin))) + len(rec.Dead.Origin) + 1 + uvarintLen(zigzag(rec.Dead.At))
}

// Dead reads what AppendDead writes into r: r.Dead is a fresh DeadLetter
// (its Origin a copy). An origin outside the tube-name grammar or an
// unknown reason is malformed.
func (d *Reader) Dead(r *jobs.Record) {
	if r.Sched = d.Uint32(); r.Sched != 0 {
		r.SchedAt = d.Varint()
	}
	origin := d.Bytes()
	rb := d.Byte()
	at := d.Varint()
	if d.Err != nil {
		return
	}
	reason, ok := ReasonOf(rb)
	if !ok || !jobs.ValidTubeName(origin) {
		d.Fail()
		return
	}
	r.Dead = &jobs.DeadLetter{Origin: string(origin), Reason: reason, At: at}
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

func zigzag(x int64) uint64 { return uint64(x<<1) ^ uint64(x>>63) }
