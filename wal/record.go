package wal

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/bits"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// Entry layout. Every tidwall/wal entry holds exactly one of our records:
//
//	crc32c  uint32, little endian, over every byte after it
//	kind    byte: 1 put, 2 update, 3 delete (jobs.RecordKind), 16 meta
//	put:    uvarint id, byte state, uvarint pri, varint delay, varint ttr,
//	        varint created, varint deadline, uvarint reserves, timeouts,
//	        releases, buries, kicks, uvarint len(tube), tube,
//	        uvarint len(body), body
//	update: the put fields up to kicks (no tube, no body)
//	delete: uvarint id
//	meta:   uvarint durable, uvarint logStart, uvarint maxID
//
// A future format uses new kind numbers; a reader refuses kinds it does not
// know (as corruption), so an old binary never misreads a new log.
const (
	kindPut    = byte(jobs.RecPut)
	kindUpdate = byte(jobs.RecUpdate)
	kindDelete = byte(jobs.RecDelete)
	kindMeta   = byte(0x10)

	crcLen = 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Decoding errors. They name what was wrong; the scanner adds file and offset.
var (
	// ErrMetaRecord is returned by DecodeRecord for the log's own bookkeeping
	// entries, which describe no job.
	ErrMetaRecord = errors.New("wal: meta record, not a job")

	errShort    = errors.New("entry too short")
	errChecksum = errors.New("checksum mismatch")
	errKind     = errors.New("unknown record kind")
	errField    = errors.New("malformed field")
	errTrailing = errors.New("trailing bytes after record")
	errBadJob   = errors.New("invalid job fields")
)

// meta is the log's bookkeeping, written after each sync and before each
// front truncation. durable: highest wal index known fsynced when the meta
// was built (tells a torn tail from corruption). logStart: the first index
// the log must still hold (a missing head segment is detected). maxID:
// highest job id ever appended (ids never repeat after compaction).
type meta struct {
	durable, logStart, maxID uint64
}

// AppendRecord appends rec, encoded as one log entry with its checksum, to
// dst and returns the extended slice. It only reads rec.
func AppendRecord(dst []byte, rec *jobs.Record) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, byte(rec.Kind))
	dst = binary.AppendUvarint(dst, rec.ID)
	if rec.Kind != jobs.RecDelete {
		dst = append(dst, byte(rec.State))
		dst = binary.AppendUvarint(dst, uint64(rec.Pri))
		dst = binary.AppendVarint(dst, int64(rec.Delay))
		dst = binary.AppendVarint(dst, int64(rec.TTR))
		dst = binary.AppendVarint(dst, rec.Created)
		dst = binary.AppendVarint(dst, rec.Deadline)
		for _, c := range [...]uint32{rec.Reserves, rec.Timeouts, rec.Releases, rec.Buries, rec.Kicks} {
			dst = binary.AppendUvarint(dst, uint64(c))
		}
	}
	if rec.Kind == jobs.RecPut {
		dst = binary.AppendUvarint(dst, uint64(len(rec.Tube)))
		dst = append(dst, rec.Tube...)
		dst = binary.AppendUvarint(dst, uint64(len(rec.Body)))
		dst = append(dst, rec.Body...)
	}
	return seal(dst, start)
}

func appendMeta(dst []byte, m meta) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, kindMeta)
	dst = binary.AppendUvarint(dst, m.durable)
	dst = binary.AppendUvarint(dst, m.logStart)
	dst = binary.AppendUvarint(dst, m.maxID)
	return seal(dst, start)
}

func seal(dst []byte, start int) []byte {
	binary.LittleEndian.PutUint32(dst[start:], crc32.Checksum(dst[start+crcLen:], castagnoli))
	return dst
}

// recordSize is len(AppendRecord(nil, rec)).
func recordSize(rec *jobs.Record) int {
	n := crcLen + 1 + uvarintLen(rec.ID)
	if rec.Kind == jobs.RecDelete {
		return n
	}
	n += 1 + uvarintLen(uint64(rec.Pri)) + varintLen(int64(rec.Delay)) + varintLen(int64(rec.TTR)) +
		varintLen(rec.Created) + varintLen(rec.Deadline)
	for _, c := range [...]uint32{rec.Reserves, rec.Timeouts, rec.Releases, rec.Buries, rec.Kicks} {
		n += uvarintLen(uint64(c))
	}
	if rec.Kind == jobs.RecPut {
		n += uvarintLen(uint64(len(rec.Tube))) + len(rec.Tube) + uvarintLen(uint64(len(rec.Body))) + len(rec.Body)
	}
	return n
}

// entrySize is what a record of n bytes occupies in a tidwall/wal segment
// (its binary framing is a uvarint length before the data).
func entrySize(n int) int { return uvarintLen(uint64(n)) + n }

func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

func varintLen(x int64) int { return uvarintLen(uint64(x<<1) ^ uint64(x>>63)) }

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
