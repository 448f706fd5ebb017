package binlog

import (
	"encoding/binary"
	"strconv"
)

// The format, as beanstalkd 1.12 writes and reads it (file.c, dat.h). Every
// integer is in the writing machine's byte order and the records are C
// structs with C's alignment, as laid out on a 64-bit (LP64) machine: the
// files of a 32-bit beanstalkd are laid out differently and are not read.
//
//	file     int32 version, then records until the end of the file or a
//	         record whose id is 0 (the zeros a file is preallocated with)
//	full     int32 name length (1..200), the tube name, a Jobrec, then the
//	         body: body_size bytes (the client's data and its "\r\n")
//	short    int32 0, then a Jobrec (a later change of a job; state Invalid
//	         (0) deletes it)
//
// Jobrec, version 7 (80 bytes; times in nanoseconds, Unix epoch):
//
//	off size field         off size field
//	  0   8  id              56   4  reserve_ct
//	  8   4  pri             60   4  timeout_ct
//	 12   4  (padding)       64   4  release_ct
//	 16   8  delay           68   4  bury_ct
//	 24   8  ttr             72   4  kick_ct
//	 32   4  body_size       76   1  state
//	 36   4  (padding)       77   3  (padding)
//	 40   8  created_at
//	 48   8  deadline_at
//
// Version 5 (beanstalkd 1.4.x) differs in three ways: the name length is a
// size_t (8 bytes), the Jobrec is read up to the state byte (77 bytes, the
// same offsets), and delay, ttr, created_at and deadline_at are in
// microseconds.

// Format versions.
const (
	// Version7 is the format of beanstalkd 1.5 to 1.13, the one Writer writes.
	Version7 = 7
	// Version5 is the format of beanstalkd 1.4.x, still read by 1.12.
	Version5 = 5
)

// Sizes of the format's parts.
const (
	// MaxTubeName is the longest tube name a record may carry (beanstalkd's
	// MAX_TUBE_NAME_LEN - 1).
	MaxTubeName = 200
	// RecSize is the size of a version-7 Jobrec.
	RecSize = 80
	// rec5Size is how much of a version-5 Jobrec is stored.
	rec5Size = 77
	// ShortSize is the size of a version-7 short record (a change or a
	// delete): the zero name length and a Jobrec.
	ShortSize = 4 + RecSize
)

// State is a Jobrec's state byte.
type State byte

// The states a record can carry (dat.h's enum; Copy is never written).
const (
	Invalid  State = 0 // a delete
	Ready    State = 1
	Reserved State = 2 // read back as Ready
	Buried   State = 3
	Delayed  State = 4
)

// String returns the state's name as stats-job prints it ("invalid" for 0,
// "state N" for bytes beanstalkd does not define).
func (s State) String() string {
	switch s {
	case Invalid:
		return "invalid"
	case Ready:
		return "ready"
	case Reserved:
		return "reserved"
	case Buried:
		return "buried"
	case Delayed:
		return "delayed"
	}
	return "state " + strconv.Itoa(int(s))
}

// Rec is a Jobrec: the persistent fields of a job. Times are in nanoseconds
// (version 5's microseconds are converted when read); Created and Deadline
// are Unix times.
type Rec struct {
	ID       uint64
	Pri      uint32
	Delay    int64 // the delay of the job's last put or release, ns
	TTR      int64 // ns
	BodySize int32 // bytes of body, the trailing "\r\n" included
	Created  int64 // when the job was put, Unix ns
	Deadline int64 // when a delayed job becomes ready, Unix ns (meaningless in other states)

	Reserves, Timeouts, Releases, Buries, Kicks uint32

	State State
}

// ne is the byte order of the files: the writing machine's.
var ne = binary.NativeEndian

// appendRec appends r as a version-7 Jobrec, padding zeroed.
func appendRec(dst []byte, r *Rec) []byte {
	var b [RecSize]byte
	ne.PutUint64(b[0:], r.ID)
	ne.PutUint32(b[8:], r.Pri)
	ne.PutUint64(b[16:], uint64(r.Delay))
	ne.PutUint64(b[24:], uint64(r.TTR))
	ne.PutUint32(b[32:], uint32(r.BodySize))
	ne.PutUint64(b[40:], uint64(r.Created))
	ne.PutUint64(b[48:], uint64(r.Deadline))
	ne.PutUint32(b[56:], r.Reserves)
	ne.PutUint32(b[60:], r.Timeouts)
	ne.PutUint32(b[64:], r.Releases)
	ne.PutUint32(b[68:], r.Buries)
	ne.PutUint32(b[72:], r.Kicks)
	b[76] = byte(r.State)
	return append(dst, b[:]...)
}

// decodeRec reads a Jobrec of the given version from b (RecSize or
// rec5Size bytes), converting version 5's microseconds to nanoseconds.
func decodeRec(b []byte, version int) Rec {
	r := Rec{
		ID:       ne.Uint64(b[0:]),
		Pri:      ne.Uint32(b[8:]),
		Delay:    int64(ne.Uint64(b[16:])),
		TTR:      int64(ne.Uint64(b[24:])),
		BodySize: int32(ne.Uint32(b[32:])),
		Created:  int64(ne.Uint64(b[40:])),
		Deadline: int64(ne.Uint64(b[48:])),
		Reserves: ne.Uint32(b[56:]),
		Timeouts: ne.Uint32(b[60:]),
		Releases: ne.Uint32(b[64:]),
		Buries:   ne.Uint32(b[68:]),
		Kicks:    ne.Uint32(b[72:]),
		State:    State(b[76]),
	}
	if version == Version5 {
		// 1.12 multiplies as uint64 and stores the result in int64 fields.
		r.Delay = int64(uint64(r.Delay) * 1000)
		r.TTR = int64(uint64(r.TTR) * 1000)
		r.Created = int64(uint64(r.Created) * 1000)
		r.Deadline = int64(uint64(r.Deadline) * 1000)
	}
	return r
}

// AppendFull appends a version-7 full record: the tube name, r and body
// (which must hold r.BodySize bytes). The name must be 1..MaxTubeName bytes.
func AppendFull(dst []byte, tube string, r *Rec, body []byte) []byte {
	dst = ne.AppendUint32(dst, uint32(len(tube)))
	dst = append(dst, tube...)
	dst = appendRec(dst, r)
	return append(dst, body...)
}

// AppendShort appends a version-7 short record of r (state Invalid: a delete).
func AppendShort(dst []byte, r *Rec) []byte {
	dst = ne.AppendUint32(dst, 0)
	return appendRec(dst, r)
}

// AppendHeader appends a file's header: its version.
func AppendHeader(dst []byte, version int) []byte {
	return ne.AppendUint32(dst, uint32(int32(version)))
}

// AppendFull5 and AppendShort5 append version-5 records (beanstalkd 1.4.x),
// for tests and tools that need such files: times in r are nanoseconds and
// are written as microseconds.
func AppendFull5(dst []byte, tube string, r *Rec, body []byte) []byte {
	dst = ne.AppendUint64(dst, uint64(len(tube)))
	dst = append(dst, tube...)
	dst = appendRec5(dst, r)
	return append(dst, body...)
}

// AppendShort5 appends a version-5 short record (see AppendFull5).
func AppendShort5(dst []byte, r *Rec) []byte {
	dst = ne.AppendUint64(dst, 0)
	return appendRec5(dst, r)
}

func appendRec5(dst []byte, r *Rec) []byte {
	us := *r
	us.Delay, us.TTR, us.Created, us.Deadline = r.Delay/1000, r.TTR/1000, r.Created/1000, r.Deadline/1000
	return appendRec(dst, &us)[:len(dst)+rec5Size]
}
