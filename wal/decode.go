package wal

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal/internal/fields"
)

// DecodeRecord decodes one log entry (the data of one tidwall/wal entry, in
// the format format.go describes) after verifying its checksum. Tube and Body are views into entry: copy
// them to keep them past entry's lifetime. Body is the job data without the CRLF that ends it on
// disk. It returns ErrMetaRecord for the
// log's bookkeeping entries, and an error for anything malformed; it never
// panics, whatever entry holds.
func DecodeRecord(entry []byte) (jobs.Record, error) {
	var e decoded
	if err := e.decode(entry); err != nil {
		return jobs.Record{}, err
	}
	if e.isMeta {
		return jobs.Record{}, ErrMetaRecord
	}
	e.rec.Tube = string(e.tube)
	return e.rec, nil
}

// decoded is one decoded entry: a job record (rec, with the tube name as a
// view in tube and rec.Tube left empty) or a meta record.
type decoded struct {
	rec    jobs.Record
	tube   []byte
	meta   meta
	isMeta bool
}

// decode fills e from the entry b; views point into b.
func (e *decoded) decode(b []byte) error {
	*e = decoded{}
	if len(b) < crcLen+2 {
		return errShort
	}
	if binary.LittleEndian.Uint32(b) != crc32.Checksum(b[crcLen:], castagnoli) {
		return errChecksum
	}
	d := decoder{fields.Reader{B: b[crcLen+1:], Malformed: errField}}
	kind, known := kindOf(b[crcLen])
	switch {
	case b[crcLen] == kindMeta:
		e.isMeta = true
		e.meta = meta{durable: d.Uvarint(), logStart: d.Uvarint(), maxID: d.Uvarint()}
	case !known:
		return fmt.Errorf("%w %#x", errKind, b[crcLen])
	case b[crcLen] == kindPolicyExt:
		e.rec.Kind = kind
		d.PolicyExt(&e.rec)
		e.tube = []byte(e.rec.Tube)
	case kind == jobs.RecPolicy:
		e.rec.Kind = kind
		d.Policy(&e.rec)
		e.tube = []byte(e.rec.Tube)
	case kind == jobs.RecPolicySet:
		e.rec.Kind = kind
		d.PolicySet(&e.rec)
	case b[crcLen] == kindSchedPut:
		e.rec.Kind = kind
		e.tube = d.job(&e.rec)
		d.Sched(&e.rec)
	case b[crcLen] == kindDeadPut:
		e.rec.Kind = kind
		e.tube = d.job(&e.rec)
		d.Dead(&e.rec)
	case kind == jobs.RecClear:
		e.rec.Kind = kind
		e.rec.IDs = d.ids()
	default:
		e.rec.Kind = kind
		e.tube = d.job(&e.rec)
	}
	if d.Err != nil {
		return d.Err
	}
	if len(d.B) != 0 {
		return errTrailing
	}
	if !e.isMeta && !validJob(&e.rec, e.tube) {
		return errBadJob
	}
	if e.rec.Kind == jobs.RecPut {
		e.rec.Body, _ = fields.Unframe(e.rec.Body) // the bare data, as the queue keeps it
	}
	return nil
}

// validJob holds what the queue relies on: an id, a known state, a tube of
// protocol length and, for a put, a body field ending in the CRLF that
// AppendJob adds (r.Body is still the whole field here).
func validJob(r *jobs.Record, tube []byte) bool {
	if r.Kind == jobs.RecClear {
		for _, id := range r.IDs {
			if id == 0 {
				return false
			}
		}
		return true
	}
	if r.Kind == jobs.RecPolicy {
		return fields.ValidPolicy(r)
	}
	if r.Kind == jobs.RecPolicySet {
		return fields.ValidPolicySet(r)
	}
	if r.ID == 0 {
		return false
	}
	if r.Kind == jobs.RecDelete {
		return true
	}
	if r.Delay < 0 || r.TTR < 0 {
		return false
	}
	if r.Kind == jobs.RecUpdate {
		return true
	}
	_, framed := fields.Unframe(r.Body)
	return len(tube) > 0 && len(tube) <= jobs.MaxTubeName && framed
}

// decoder reads fields from b, remembering the first error.
type decoder struct{ fields.Reader }

// job decodes the job fields of r's kind and returns the tube name (a view;
// nil but for puts).
func (d *decoder) job(r *jobs.Record) (tube []byte) {
	r.ID = d.Uvarint()
	if r.Kind == jobs.RecDelete {
		return nil
	}
	sb := d.Byte()
	if s, ok := stateOf(sb); ok {
		r.State = s
	} else if d.Err == nil {
		d.Err = fmt.Errorf("%w %#x", errState, sb)
	}
	tube, field := d.Job(r)
	if r.Kind == jobs.RecPut {
		r.Body = field // still framed: validJob checks the CRLF, decode strips it
	}
	return tube
}

// ids decodes the id list of a clear record (a fresh slice, nil when
// empty). The count is checked against the bytes left (each id takes at
// least one), so a hostile count cannot make it allocate.
func (d *decoder) ids() []uint64 {
	n := d.Uvarint()
	if d.Err != nil || n > uint64(len(d.B)) {
		d.Fail()
		return nil
	}
	if n == 0 {
		return nil
	}
	ids := make([]uint64, n)
	ids[0] = d.Uvarint()
	for i := 1; i < len(ids); i++ {
		ids[i] = ids[i-1] + uint64(d.Varint())
	}
	if d.Err != nil {
		return nil
	}
	return ids
}
