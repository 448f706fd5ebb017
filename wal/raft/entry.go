package raft

import (
	"fmt"
	"github.com/stalkd/stalkd/wal/internal/fields"

	"encoding/binary"
	"errors"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// Entry layout. The data of one raft command entry is a batch of records:
//
//	version byte (1)
//	count   uvarint
//	count records, each:
//	  kind    byte: 1 put, 2 update, 3 delete, 4 clear
//	  clear only: uvarint count, count uvarint ids (nothing else follows)
//	  kind 5 pause: uvarint len(tube), tube, varint length, varint end (no id)
//	  id      uvarint
//	  put and update only:
//	    state byte: 1 ready, 2 reserved, 3 delayed, 4 buried
//	    uvarint pri, varint delay, varint ttr, varint created, varint deadline,
//	    uvarint reserves, timeouts, releases, buries, kicks
//	  put only: uvarint len(tube), tube, uvarint len(body)+2, body, "\r\n"
//	    (the CRLF is on disk though jobs.Record.Body, the job data, lacks it)
//	  kind 6 policy (no id): a tube's policy as package wal writes it
//	    (wal/internal/fields.AppendPolicy: tube, removed or the fields, and
//	    each schedule's last fire time)
//	  kind 7 scheduled put: a put's fields (as kind 1, from the id on), then
//	    uvarint sched (the schedule's number plus one), varint schedAt
//	  kind 8 dead put (a job that moved into a dead-letter tube): a put's
//	    fields, then its dead-letter mark as package wal writes it
//	    (wal/internal/fields.AppendDead: the schedule's mark if any, the
//	    origin tube, the reason, the time it moved)
//	  kind 10 extended policy (no id): a policy with a field kind 6 lacks
//	    (overflow), as package wal writes its kind 10
//	    (wal/internal/fields.AppendPolicyExt); a policy without one is
//	    still kind 6
//	  kind 11 policy set (no id): every tube's policy at once, as package
//	    wal writes its kind 11 (wal/internal/fields.AppendPolicySet)
//
// The fields are those of wal's records, but the numbers are this format's
// own (pinned here, not jobs' constants), a reserved state is legal (raft
// replicates reservations; the disk log never holds one) and there is no
// checksum (raft-wal checksums every entry). A snapshot is the same records,
// every one a put (see snapshot.go). A reader refuses a version, kind or
// state it does not know, so an old binary never misreads a new log.
const entryVersion = 1

const (
	kindPut    = 1
	kindUpdate = 2
	kindDelete = 3
	kindClear  = 4
	kindPause  = 5
	// kindPolicy and kindSchedPut came with tube policies: an older binary
	// refuses them (and so stops applying), so a cluster upgrades every
	// node before it sets its first policy.
	kindPolicy   = 6
	kindSchedPut = 7
	// kindDeadPut came with dead letters that remember their origin: an
	// older binary refuses it, so a cluster upgrades every node before a
	// job is dead-lettered, moved or redriven.
	kindDeadPut = 8
	// kindPolicyExt and kindPolicySet came with max_ready's overflow and
	// policy files applied whole: the same rule holds.
	kindPolicyExt = 10
	kindPolicySet = 11
)

var stateCode = [...]byte{jobs.Ready: 1, jobs.Reserved: 2, jobs.Delayed: 3, jobs.Buried: 4}

var codeState = [...]jobs.State{1: jobs.Ready, 2: jobs.Reserved, 3: jobs.Delayed, 4: jobs.Buried}

// ErrMalformed is returned for entry or snapshot data that does not decode.
var ErrMalformed = errors.New("raft: malformed record data")

// encodable reports whether appendRecord has an encoding for kind.
func encodable(kind jobs.RecordKind) bool {
	switch kind {
	case jobs.RecPut, jobs.RecUpdate, jobs.RecDelete, jobs.RecClear, jobs.RecPause, jobs.RecPolicy, jobs.RecPolicySet:
		return true
	}
	return false
}

// appendRecord appends rec's encoding to dst; rec.Kind must be encodable.
func appendRecord(dst []byte, rec *jobs.Record) []byte {
	var kind byte
	switch rec.Kind {
	case jobs.RecPut:
		kind = kindPut
		if rec.Sched != 0 {
			kind = kindSchedPut
		}
		if rec.Dead != nil {
			kind = kindDeadPut // carries the schedule's mark too
		}
	case jobs.RecPolicy:
		if fields.PolicyExt(rec) {
			return fields.AppendPolicyExt(append(dst, kindPolicyExt), rec)
		}
		return fields.AppendPolicy(append(dst, kindPolicy), rec)
	case jobs.RecPolicySet:
		return fields.AppendPolicySet(append(dst, kindPolicySet), rec)
	case jobs.RecUpdate:
		kind = kindUpdate
	case jobs.RecPause:
		dst = append(dst, kindPause)
		dst = binary.AppendUvarint(dst, uint64(len(rec.Tube)))
		dst = append(dst, rec.Tube...)
		dst = binary.AppendVarint(dst, int64(rec.Delay))
		return binary.AppendVarint(dst, rec.Deadline)
	case jobs.RecClear:
		dst = append(dst, kindClear)
		dst = binary.AppendUvarint(dst, uint64(len(rec.IDs)))
		for _, id := range rec.IDs {
			dst = binary.AppendUvarint(dst, id)
		}
		return dst
	case jobs.RecDelete:
		kind = kindDelete
	default:
		panic(fmt.Sprintf("raft: record kind %d has no entry encoding", rec.Kind)) // Journal.Append refuses it first
	}
	dst = append(dst, kind)
	dst = binary.AppendUvarint(dst, rec.ID)
	if kind == kindDelete {
		return dst
	}
	var st byte
	if int(rec.State) < len(stateCode) {
		st = stateCode[rec.State]
	}
	dst = fields.AppendJob(append(dst, st), rec)
	switch kind {
	case kindSchedPut:
		dst = fields.AppendSched(dst, rec)
	case kindDeadPut:
		dst = fields.AppendDead(dst, rec)
	}
	return dst
}

// encodeEntry returns the entry data of a batch of records.
func encodeEntry(recs []jobs.Record, sizeHint int) []byte {
	b := make([]byte, 0, sizeHint+16)
	b = append(b, entryVersion)
	b = binary.AppendUvarint(b, uint64(len(recs)))
	for i := range recs {
		b = appendRecord(b, &recs[i])
	}
	return b
}

// recordSizeHint is about len(appendRecord(nil, rec)), never less.
func recordSizeHint(rec *jobs.Record) int {
	n := 1 + 10 + 1 + 5 + 4*10 + 5*5 + 2*5 + len(rec.Tube) + fields.BodyFieldLen(len(rec.Body)) + 10*len(rec.IDs)
	if rec.Dead != nil {
		n += fields.DeadSize(rec)
	}
	if rec.Kind == jobs.RecPolicy {
		n = 1 + len(fields.AppendPolicyExt(nil, rec))
	}
	if rec.Kind == jobs.RecPolicySet {
		n = 1 + fields.PolicySetSize(rec)
	}
	return n
}

// decodeEntry calls fn for each record of the entry data b. Tube and Body
// of the records are copies (or what bodies returns), fn may keep them.
// bodies, if not nil, may supply the body of a put instead of a copy: the
// leader's own, identical bytes (see Journal.takeBody).
func decodeEntry(b []byte, bodies func(id uint64, view []byte) []byte, fn func(*jobs.Record) error) error {
	if len(b) == 0 || b[0] != entryVersion {
		return ErrMalformed
	}
	d := decoder{Reader: fields.Reader{B: b[1:], Malformed: ErrMalformed}, bodies: bodies}
	n := d.Uvarint()
	for i := uint64(0); i < n && d.Err == nil; i++ {
		var rec jobs.Record
		d.record(&rec)
		if d.Err != nil {
			break
		}
		if err := fn(&rec); err != nil {
			return err
		}
	}
	if d.Err != nil || len(d.B) != 0 {
		return ErrMalformed
	}
	return nil
}

// decoder reads fields from b, remembering the first error.
type decoder struct {
	fields.Reader
	bodies func(id uint64, view []byte) []byte // optional: see decodeEntry
}

func (d *decoder) record(r *jobs.Record) {
	kind := d.Byte()
	switch kind {
	case kindPut, kindSchedPut, kindDeadPut:
		r.Kind = jobs.RecPut
	case kindPolicy, kindPolicyExt:
		r.Kind = jobs.RecPolicy
		if kind == kindPolicyExt {
			d.PolicyExt(r)
		} else {
			d.Policy(r)
		}
		if d.Err == nil && !fields.ValidPolicy(r) {
			d.Fail()
		}
		return
	case kindPolicySet:
		r.Kind = jobs.RecPolicySet
		d.PolicySet(r)
		if d.Err == nil && !fields.ValidPolicySet(r) {
			d.Fail()
		}
		return
	case kindUpdate:
		r.Kind = jobs.RecUpdate
	case kindDelete:
		r.Kind = jobs.RecDelete
	case kindPause:
		r.Kind = jobs.RecPause
		tube := d.Bytes()
		r.Tube = string(tube)
		r.Delay = time.Duration(d.Varint())
		r.Deadline = d.Varint()
		if d.Err == nil && (len(tube) == 0 || len(tube) > jobs.MaxTubeName || r.Delay <= 0) {
			d.Fail()
		}
		return
	case kindClear:
		r.Kind = jobs.RecClear
		n := d.Uvarint()
		if n > uint64(len(d.B)) { // at least a byte per id
			d.Fail()
			return
		}
		r.IDs = make([]uint64, n)
		for i := range r.IDs {
			if r.IDs[i] = d.Uvarint(); r.IDs[i] == 0 {
				d.Fail()
			}
		}
		return
	default:
		d.Fail()
		return
	}
	r.ID = d.Uvarint()
	if r.ID == 0 {
		d.Fail()
	}
	if r.Kind == jobs.RecDelete {
		return
	}
	if st := d.Byte(); int(st) < len(codeState) && codeState[st] != 0 {
		r.State = codeState[st]
	} else {
		d.Fail()
	}
	if tube, field := d.Job(r); r.Kind == jobs.RecPut {
		body, framed := fields.Unframe(field)
		if d.Err == nil && (len(tube) == 0 || len(tube) > jobs.MaxTubeName || !framed) {
			d.Fail()
		}
		r.Tube = string(tube)
		if d.bodies != nil {
			r.Body = d.bodies(r.ID, body)
		}
		if r.Body == nil {
			r.Body = make([]byte, len(body)) // exactly the data: not nil, even when empty
			copy(r.Body, body)
		}
	}
	switch kind {
	case kindSchedPut:
		d.Sched(r)
	case kindDeadPut:
		d.Dead(r)
	}
}
