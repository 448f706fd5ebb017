package wal

import (
	"sync/atomic"
	"time"
)

// Figures for monitoring (the admin listener's stalkd_wal_* series), kept
// off the append path: the sync goroutine times each fsync (syncStore) and the
// compactor counts its rounds, with a few atomic adds each.

// FsyncBuckets are the upper bounds, in seconds, of the fsync latency
// histogram in Metrics.
var FsyncBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}

// walMetrics are the counters behind Metrics; safe for concurrent use.
type walMetrics struct {
	compactions atomic.Uint64
	fsyncs      atomic.Uint64
	fsyncNanos  atomic.Int64
	buckets     [16]atomic.Uint64 // per FsyncBuckets bound (not cumulative); the last is +Inf
	syncSince   atomic.Int64      // Unix ns the running fsync began; 0 when none runs (stall.go)
}

func (m *walMetrics) observeFsync(d time.Duration) {
	m.fsyncs.Add(1)
	m.fsyncNanos.Add(int64(d))
	s := d.Seconds()
	i := 0
	for i < len(FsyncBuckets) && s > FsyncBuckets[i] {
		i++
	}
	m.buckets[i].Add(1)
}

// compacted counts a compaction round that truncated the front.
func (m *walMetrics) compacted(ok bool) {
	if ok {
		m.compactions.Add(1)
	}
}

// syncStore fsyncs segment file f, timing it. Sync goroutine (or Open,
// Close).
func (l *Log) syncStore(f appendFile) error {
	start := time.Now()
	l.metrics.syncSince.Store(l.hook.now().UnixNano())
	err := f.Sync()
	l.metrics.syncSince.Store(0)
	l.metrics.observeFsync(time.Since(start))
	return err
}

// Metrics are the journal's figures for monitoring.
type Metrics struct {
	// Bytes and Segments: the size and number of the segment files.
	Bytes    int64
	Segments int
	// Compactions counts compaction rounds that dropped segments from the
	// front; Migrated and Written are as in Stats. Since Open.
	Compactions       uint64
	Migrated, Written int64
	// FsyncCounts[i] is how many fsyncs took at most FsyncBuckets[i]
	// seconds (cumulative, as Prometheus histograms count); FsyncCount and
	// FsyncSum (seconds) cover every fsync.
	FsyncCounts []uint64
	FsyncCount  uint64
	FsyncSum    float64
}

// Metrics returns the journal's figures. Safe for concurrent use; it takes
// the Log's lock briefly and does no I/O.
func (l *Log) Metrics() Metrics {
	m := &l.metrics
	out := Metrics{
		Compactions: m.compactions.Load(),
		FsyncCount:  m.fsyncs.Load(),
		FsyncSum:    time.Duration(m.fsyncNanos.Load()).Seconds(),
		FsyncCounts: make([]uint64, len(FsyncBuckets)),
	}
	var cum uint64
	for i := range FsyncBuckets {
		cum += m.buckets[i].Load()
		out.FsyncCounts[i] = cum
	}
	l.mu.Lock()
	out.Bytes, out.Segments = l.segs.total, len(l.segs.segs)
	out.Migrated, out.Written = l.migrated, l.written
	l.mu.Unlock()
	return out
}
