// Package fields reads and writes the varint-encoded fields of stalkd's
// records: the write-ahead log's (package wal) and the replicated log's
// (wal/raft), which share the field encoding and the layout of a job's
// fields (AppendJob, Reader.Job); each frames records and numbers kinds and
// states itself. It imports the standard library and jobs (for the Record).
// A Reader is used by one goroutine at a time.
package fields

import (
	"encoding/binary"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// AppendJob appends what a put or update record carries after its state
// byte: priority, delay, TTR, creation time, deadline, the five counters
// and, for a put, the tube and the body (each preceded by its length). The
// body field is framed as the protocol frames it: rec.Body (the bare data)
// followed by "\r\n", the length counting both. Both logs have always
// stored it so (the queue once kept bodies framed in memory too); the CRLF
// is appended here, never by copying the body.
func AppendJob(dst []byte, rec *jobs.Record) []byte {
	dst = AppendJobHead(dst, rec)
	if rec.Kind == jobs.RecPut {
		dst = append(dst, rec.Body...)
		dst = append(dst, crlf...)
	}
	return dst
}

// AppendJobHead is AppendJob up to the body: for a put, what AppendJob
// writes before rec.Body (the body field's length included); then come the
// body and "\r\n" (AppendBodyEnd). A writer that hands the body to the
// kernel from where it lies (writev) encodes the record around it so.
func AppendJobHead(dst []byte, rec *jobs.Record) []byte {
	dst = binary.AppendUvarint(dst, uint64(rec.Pri))
	dst = binary.AppendVarint(dst, int64(rec.Delay))
	dst = binary.AppendVarint(dst, int64(rec.TTR))
	dst = binary.AppendVarint(dst, rec.Created)
	dst = binary.AppendVarint(dst, rec.Deadline)
	for _, c := range [...]uint32{rec.Reserves, rec.Timeouts, rec.Releases, rec.Buries, rec.Kicks} {
		dst = binary.AppendUvarint(dst, uint64(c))
	}
	if rec.Kind == jobs.RecPut {
		dst = binary.AppendUvarint(dst, uint64(len(rec.Tube)))
		dst = append(dst, rec.Tube...)
		dst = binary.AppendUvarint(dst, uint64(len(rec.Body)+len(crlf)))
	}
	return dst
}

// AppendBodyEnd appends what follows a put's body in its body field.
func AppendBodyEnd(dst []byte) []byte { return append(dst, crlf...) }

// crlf ends a body field (see AppendJob).
const crlf = "\r\n"

// BodyFieldLen is the length of the body field AppendJob writes for a body
// of n bytes.
func BodyFieldLen(n int) int { return n + len(crlf) }

// Unframe returns the job data of a body field as Reader.Job returns it (a
// view, capped), and whether the field ends in the "\r\n" AppendJob adds.
func Unframe(field []byte) (data []byte, ok bool) {
	n := len(field) - len(crlf)
	if n < 0 || field[n] != '\r' || field[n+1] != '\n' {
		return nil, false
	}
	return field[:n:n], true
}

// Job reads what AppendJob writes into r (whose Kind is set), but for a
// put's tube and body field, which it returns as views of B (nil for an
// update); the body field still ends in "\r\n" (see Unframe). The caller
// checks them and Err.
func (d *Reader) Job(r *jobs.Record) (tube, body []byte) {
	r.Pri = d.Uint32()
	r.Delay = time.Duration(d.Varint())
	r.TTR = time.Duration(d.Varint())
	r.Created, r.Deadline = d.Varint(), d.Varint()
	r.Reserves, r.Timeouts, r.Releases = d.Uint32(), d.Uint32(), d.Uint32()
	r.Buries, r.Kicks = d.Uint32(), d.Uint32()
	if r.Kind == jobs.RecPut {
		tube, body = d.Bytes(), d.Bytes()
	}
	return tube, body
}

// Reader reads fields from the front of B. The first failure sticks: Err is
// set to Malformed and every later read returns a zero value, so a decoder
// reads a whole record and checks Err once.
type Reader struct {
	B         []byte // the bytes not read yet
	Err       error  // the first failure, or nil
	Malformed error  // what a failed read sets Err to
}

// Fail records a malformed record (keeping an earlier failure).
func (d *Reader) Fail() {
	if d.Err == nil {
		d.Err = d.Malformed
	}
}

// Byte reads one byte.
func (d *Reader) Byte() byte {
	if d.Err != nil || len(d.B) == 0 {
		d.Fail()
		return 0
	}
	c := d.B[0]
	d.B = d.B[1:]
	return c
}

// Uvarint reads an unsigned varint.
func (d *Reader) Uvarint() uint64 {
	if d.Err != nil {
		return 0
	}
	x, n := binary.Uvarint(d.B)
	if n <= 0 {
		d.Fail()
		return 0
	}
	d.B = d.B[n:]
	return x
}

// Varint reads a signed (zigzag) varint.
func (d *Reader) Varint() int64 {
	ux := d.Uvarint() // zigzag, as binary.Varint decodes it
	x := int64(ux >> 1)
	if ux&1 != 0 {
		x = ^x
	}
	return x
}

// Uint32 reads an unsigned varint that must fit 32 bits.
func (d *Reader) Uint32() uint32 {
	x := d.Uvarint()
	if x > 1<<32-1 {
		d.Fail()
	}
	return uint32(x)
}

// Bytes reads a length-prefixed byte string. The result is a view into B,
// capped so that appending to it cannot overwrite what follows.
func (d *Reader) Bytes() []byte {
	n := d.Uvarint()
	if d.Err != nil || n > uint64(len(d.B)) {
		d.Fail()
		return nil
	}
	v := d.B[:n:n]
	d.B = d.B[n:]
	return v
}
