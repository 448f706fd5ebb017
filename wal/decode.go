package wal

import (
	"encoding/binary"
	"hash/crc32"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// DecodeRecord decodes one log entry (the data of one tidwall/wal entry)
// after verifying its checksum. Tube and Body are views into entry: copy
// them to keep them past entry's lifetime. It returns ErrMetaRecord for the
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
	d := decoder{b: b[crcLen+1:]}
	switch kind := b[crcLen]; kind {
	case kindMeta:
		e.isMeta = true
		e.meta = meta{durable: d.uvarint(), logStart: d.uvarint(), maxID: d.uvarint()}
	case kindPut, kindUpdate, kindDelete:
		e.rec.Kind = jobs.RecordKind(kind)
		e.tube = d.job(&e.rec)
	case kindClear:
		e.rec.Kind = jobs.RecClear
		e.rec.IDs = d.ids()
	default:
		return errKind
	}
	if d.err != nil {
		return d.err
	}
	if len(d.b) != 0 {
		return errTrailing
	}
	if !e.isMeta && !validJob(&e.rec, e.tube) {
		return errBadJob
	}
	return nil
}

// validJob holds what the queue relies on: an id, a known state, a tube of
// protocol length and a body ending in CRLF.
func validJob(r *jobs.Record, tube []byte) bool {
	if r.Kind == jobs.RecClear {
		for _, id := range r.IDs {
			if id == 0 {
				return false
			}
		}
		return true
	}
	if r.ID == 0 {
		return false
	}
	if r.Kind == jobs.RecDelete {
		return true
	}
	if r.State < jobs.Ready || r.State > jobs.Buried || r.Delay < 0 || r.TTR < 0 {
		return false
	}
	if r.Kind == jobs.RecUpdate {
		return true
	}
	n := len(r.Body)
	return len(tube) > 0 && len(tube) <= jobs.MaxTubeName && n >= 2 && r.Body[n-2] == '\r' && r.Body[n-1] == '\n'
}

// decoder reads fields from b, remembering the first error.
type decoder struct {
	b   []byte
	err error
}

// job decodes the job fields of r's kind and returns the tube name (a view;
// nil but for puts).
func (d *decoder) job(r *jobs.Record) (tube []byte) {
	r.ID = d.uvarint()
	if r.Kind == jobs.RecDelete {
		return nil
	}
	r.State = jobs.State(d.byte())
	r.Pri = d.uint32()
	r.Delay = time.Duration(d.varint())
	r.TTR = time.Duration(d.varint())
	r.Created, r.Deadline = d.varint(), d.varint()
	r.Reserves, r.Timeouts, r.Releases = d.uint32(), d.uint32(), d.uint32()
	r.Buries, r.Kicks = d.uint32(), d.uint32()
	if r.Kind == jobs.RecPut {
		tube = d.bytes()
		r.Body = d.bytes()
	}
	return tube
}

// ids decodes the id list of a clear record (a fresh slice, nil when
// empty). The count is checked against the bytes left (each id takes at
// least one), so a hostile count cannot make it allocate.
func (d *decoder) ids() []uint64 {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	if n == 0 {
		return nil
	}
	ids := make([]uint64, n)
	ids[0] = d.uvarint()
	for i := 1; i < len(ids); i++ {
		ids[i] = ids[i-1] + uint64(d.varint())
	}
	if d.err != nil {
		return nil
	}
	return ids
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) uint32() uint32 {
	x := d.uvarint()
	if x > 1<<32-1 {
		d.fail()
	}
	return uint32(x)
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errField
	}
}
