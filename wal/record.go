package wal

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/bits"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal/internal/fields"
)

const crcLen = 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Decoding errors. They name what was wrong; the scanner adds file and offset.
var (
	// ErrMetaRecord is returned by DecodeRecord for the log's own bookkeeping
	// entries, which describe no job.
	ErrMetaRecord = errors.New("wal: meta record, not a job")

	errShort    = errors.New("entry too short")
	errChecksum = errors.New("checksum mismatch")
	errKind     = errors.New("unknown record kind")
	errState    = errors.New("unknown job state")
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

// AppendRecord appends rec, encoded as one log entry with its checksum in
// the format format.go describes, to dst and returns the extended slice. It
// only reads rec. A kind or state the format does not know is encoded as
// an invalid byte that DecodeRecord refuses (the Log refuses such records
// in Append, before they reach the disk).
func AppendRecord(dst []byte, rec *jobs.Record) []byte {
	start := len(dst)
	kind, _ := kindByte(rec.Kind)
	if rec.Kind == jobs.RecPut && rec.Sched != 0 {
		kind = kindSchedPut
	}
	if rec.Kind == jobs.RecPut && rec.Dead != nil {
		kind = kindDeadPut // carries the schedule's mark too
	}
	if rec.Kind == jobs.RecPolicy && fields.PolicyExt(rec) {
		kind = kindPolicyExt
	}
	dst = append(dst, 0, 0, 0, 0, kind)
	switch {
	case kind == kindPolicyExt:
		return seal(fields.AppendPolicyExt(dst, rec), start)
	case rec.Kind == jobs.RecPolicy:
		return seal(fields.AppendPolicy(dst, rec), start)
	case rec.Kind == jobs.RecPolicySet:
		return seal(fields.AppendPolicySet(dst, rec), start)
	}
	if rec.Kind == jobs.RecClear {
		return seal(appendIDs(dst, rec.IDs), start)
	}
	dst = binary.AppendUvarint(dst, rec.ID)
	if rec.Kind != jobs.RecDelete {
		state, _ := stateByte(rec.State)
		dst = fields.AppendJob(append(dst, state), rec)
	}
	switch kind {
	case kindSchedPut:
		dst = fields.AppendSched(dst, rec)
	case kindDeadPut:
		dst = fields.AppendDead(dst, rec)
	}
	return seal(dst, start)
}

// appendRecordAround encodes rec as AppendRecord does, but for a put leaves
// its body out: the entry is out[start:at], then rec.Body, then out[at:],
// and its checksum covers the three. A writer gathers the pieces with one
// writev, so a large body goes from the job to the kernel without a copy
// into the writer's buffer. Other records are whole in out (at == len(out)).
func appendRecordAround(dst []byte, rec *jobs.Record) (out []byte, at int) {
	if rec.Kind != jobs.RecPut {
		out = AppendRecord(dst, rec)
		return out, len(out)
	}
	start := len(dst)
	kind := kindPut
	if rec.Sched != 0 {
		kind = kindSchedPut
	}
	if rec.Dead != nil {
		kind = kindDeadPut // carries the schedule's mark too
	}
	dst = append(dst, 0, 0, 0, 0, kind)
	dst = binary.AppendUvarint(dst, rec.ID)
	state, _ := stateByte(rec.State)
	dst = fields.AppendJobHead(append(dst, state), rec)
	at = len(dst)
	dst = fields.AppendBodyEnd(dst)
	switch kind {
	case kindSchedPut:
		dst = fields.AppendSched(dst, rec)
	case kindDeadPut:
		dst = fields.AppendDead(dst, rec)
	}
	sum := crc32.Update(0, castagnoli, dst[start+crcLen:at])
	sum = crc32.Update(sum, castagnoli, rec.Body)
	sum = crc32.Update(sum, castagnoli, dst[at:])
	binary.LittleEndian.PutUint32(dst[start:], sum)
	return dst, at
}

// appendIDs encodes the id list of a clear record.
func appendIDs(dst []byte, ids []uint64) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(ids)))
	var prev uint64
	for i, id := range ids {
		if i == 0 {
			dst = binary.AppendUvarint(dst, id)
		} else {
			dst = binary.AppendVarint(dst, int64(id-prev))
		}
		prev = id
	}
	return dst
}

// idsSize is len(appendIDs(nil, ids)).
func idsSize(ids []uint64) int {
	n := uvarintLen(uint64(len(ids)))
	var prev uint64
	for i, id := range ids {
		if i == 0 {
			n += uvarintLen(id)
		} else {
			n += varintLen(int64(id - prev))
		}
		prev = id
	}
	return n
}

func appendMeta(dst []byte, m meta) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, kindMeta)
	dst = binary.AppendUvarint(dst, m.durable)
	dst = binary.AppendUvarint(dst, m.logStart)
	dst = binary.AppendUvarint(dst, m.maxID)
	return seal(dst, start)
}

// metaSize is len(appendMeta(nil, m)).
func metaSize(m meta) int {
	return crcLen + 1 + uvarintLen(m.durable) + uvarintLen(m.logStart) + uvarintLen(m.maxID)
}

func seal(dst []byte, start int) []byte {
	binary.LittleEndian.PutUint32(dst[start:], crc32.Checksum(dst[start+crcLen:], castagnoli))
	return dst
}

// recordSize is len(AppendRecord(nil, rec)).
func recordSize(rec *jobs.Record) int {
	if rec.Kind == jobs.RecClear {
		return crcLen + 1 + idsSize(rec.IDs)
	}
	if rec.Kind == jobs.RecPolicy {
		if fields.PolicyExt(rec) {
			return crcLen + 1 + len(fields.AppendPolicyExt(nil, rec))
		}
		return crcLen + 1 + fields.PolicySize(rec)
	}
	if rec.Kind == jobs.RecPolicySet {
		return crcLen + 1 + fields.PolicySetSize(rec)
	}
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
		n += uvarintLen(uint64(len(rec.Tube))) + len(rec.Tube) + uvarintLen(uint64(fields.BodyFieldLen(len(rec.Body)))) + fields.BodyFieldLen(len(rec.Body))
		switch {
		case rec.Dead != nil:
			n += fields.DeadSize(rec)
		case rec.Sched != 0:
			n += uvarintLen(uint64(rec.Sched)) + varintLen(rec.SchedAt)
		}
	}
	return n
}

// entrySize is what a record of n bytes occupies in a segment (tidwall/wal's
// binary framing: a uvarint length before the data).
func entrySize(n int) int { return uvarintLen(uint64(n)) + n }

func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

func varintLen(x int64) int { return uvarintLen(uint64(x<<1) ^ uint64(x>>63)) }
