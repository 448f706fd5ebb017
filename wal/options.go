package wal

import (
	"fmt"
	"time"

	"github.com/rs/zerolog"
)

// Defaults of the server's flags.
const (
	// DefaultSyncInterval is the server's -f default (the zero Options value
	// means -f0, which is safer, not this).
	DefaultSyncInterval = 50 * time.Millisecond
	// DefaultSegmentSize is the server's -s default and what a zero
	// Options.SegmentSize means.
	DefaultSegmentSize = 10 << 20
)

// The segment sizes a server's -s may ask for: ClampSegmentSize brings any
// setting inside. Open accepts smaller segments, down to minSegmentSize, so
// that tests fill several with a few records.
const (
	MinSegmentSize = 4096
	MaxSegmentSize = 1 << 40
)

// ClampSegmentSize is the segment size a -s setting gets: n clamped to
// [MinSegmentSize, MaxSegmentSize] (the stats document still reports the
// value given, as the reference does).
func ClampSegmentSize(n int64) int64 { return min(max(n, MinSegmentSize), MaxSegmentSize) }

// Internal limits.
const (
	// minSegmentSize is the smallest segment Open accepts.
	minSegmentSize = 512
	// maxPending bounds the bytes waiting for a writer: beyond it, new
	// puts get ErrNoSpace (the disk cannot keep up).
	maxPending = 64 << 20
	// reserve file bounds (its size is SegmentSize clamped to these).
	minReserve = 64 << 10
	maxReserve = 64 << 20
	// reserveRetryEvery paces attempts to re-create the reserve in low-space
	// mode when no compaction frees segments.
	reserveRetryEvery = 5 * time.Second
)

// Options configures a Log. The zero value is usable: fsync before every
// acknowledgement, 10 MiB segments, refuse a corrupt log, no logging. Open
// copies the value and never modifies it.
type Options struct {
	// SyncInterval is -f: a change is acknowledged once written, and fsync
	// follows within SyncInterval, driven by a timer. Zero (-f0): a change is
	// acknowledged only after the fsync that covers it.
	SyncInterval time.Duration
	// NoSync is -F: never fsync for acknowledgements (acknowledge once
	// written). Compaction still syncs before it deletes old segments, and
	// a full segment is synced once the next one starts.
	NoSync bool
	// SegmentSize is -s, in bytes: a segment file is closed and the next one
	// begun once it reaches this size. Zero means DefaultSegmentSize.
	SegmentSize int64
	// Salvage starts despite damage anywhere in the log (a bad checksum, a
	// missing or emptied segment file, a damaged manifest), keeping
	// every record that is still readable: the damaged files are moved to
	// DIR/salvage-<time>/ and a fresh log holding the recovered jobs is
	// written. Deleted jobs can come back and lost ones stay lost.
	Salvage bool
	// Logger receives the log's warnings and errors (the zero Logger
	// discards them).
	Logger zerolog.Logger
}

// normalize validates o and fills in defaults, returning the copy Open uses.
func (o Options) normalize() (Options, error) {
	if o.SyncInterval < 0 {
		return o, fmt.Errorf("wal: negative sync interval %v", o.SyncInterval)
	}
	if o.SegmentSize == 0 {
		o.SegmentSize = DefaultSegmentSize
	}
	if o.SegmentSize < minSegmentSize || o.SegmentSize > MaxSegmentSize {
		return o, fmt.Errorf("wal: segment size %d out of range [%d, 2^40]", o.SegmentSize, minSegmentSize)
	}
	return o, nil
}

// reserveSize is how many bytes the space reserve holds back for deletes and
// compaction once the disk fills.
func (o Options) reserveSize() int64 {
	return min(max(o.SegmentSize, minReserve), maxReserve)
}

// chunkSize bounds the bytes a writer hands the kernel in one write(2), so that
// the space reserve always covers a retried chunk (a larger single record
// is written alone).
func (o Options) chunkSize() int { return int(o.reserveSize() / 4) }
