// Package fields reads the varint-encoded fields of stalkd's records: the
// write-ahead log's (package wal) and the replicated log's (wal/raft), which
// share the field encoding. It imports only the standard library. A Reader
// is used by one goroutine at a time.
package fields

import "encoding/binary"

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
