package wal

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/bits"

	"github.com/stalkd/stalkd/jobs"
)

// Entry layout. Every tidwall/wal entry holds exactly one of our records:
//
//	crc32c  uint32, little endian, over every byte after it
//	kind    byte: 1 put, 2 update, 3 delete, 4 clear (jobs.RecordKind), 16 meta
//	put:    uvarint id, byte state, uvarint pri, varint delay, varint ttr,
//	        varint created, varint deadline, uvarint reserves, timeouts,
//	        releases, buries, kicks, uvarint len(tube), tube,
//	        uvarint len(body), body
//	update: the put fields up to kicks (no tube, no body)
//	delete: uvarint id
//	clear:  uvarint n, then n ids: the first as a uvarint, each next one as
//	        a zigzag varint of its difference from the one before (a sorted
//	        list costs about one byte per id)
//	meta:   uvarint durable, uvarint logStart, uvarint maxID
//
// A future format uses new kind numbers; a reader refuses kinds it does not
// know (as corruption), so an old binary never misreads a new log.
const (
	kindPut    = byte(jobs.RecPut)
	kindUpdate = byte(jobs.RecUpdate)
	kindDelete = byte(jobs.RecDelete)
	kindClear  = byte(jobs.RecClear)
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
	if rec.Kind == jobs.RecClear {
		return seal(appendIDs(dst, rec.IDs), start)
	}
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

func seal(dst []byte, start int) []byte {
	binary.LittleEndian.PutUint32(dst[start:], crc32.Checksum(dst[start+crcLen:], castagnoli))
	return dst
}

// recordSize is len(AppendRecord(nil, rec)).
func recordSize(rec *jobs.Record) int {
	if rec.Kind == jobs.RecClear {
		return crcLen + 1 + idsSize(rec.IDs)
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
		n += uvarintLen(uint64(len(rec.Tube))) + len(rec.Tube) + uvarintLen(uint64(len(rec.Body))) + len(rec.Body)
	}
	return n
}

// entrySize is what a record of n bytes occupies in a tidwall/wal segment
// (its binary framing is a uvarint length before the data).
func entrySize(n int) int { return uvarintLen(uint64(n)) + n }

func uvarintLen(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

func varintLen(x int64) int { return uvarintLen(uint64(x<<1) ^ uint64(x>>63)) }
