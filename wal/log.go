package wal

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/jobs"
)

// ErrClosed is returned by Close on a Log already closed.
var ErrClosed = errors.New("wal: log closed")

// Log is the journal: a write-ahead log of job records in a directory of
// segment files in tidwall/wal's format. It implements jobs.Journal and
// jobs.Flusher.
//
// Concurrency: Append, Committed, Subscribe, File and Stats are safe for
// concurrent use and never do I/O; so are NextID and EnsureNextID, which
// do I/O only when a block of ids must be leased (lease.go). Flush is safe
// for concurrent use: it writes what is buffered with one write(2) per
// chunk, under wmu, which is never held across an fsync. One sync goroutine
// fsyncs (as the policy says), publishes commits that wait for an fsync,
// writes the manifest, truncates the front and writes what no caller
// flushed; one compaction goroutine moves live jobs forward through the
// queue. Both start in Replay and stop in Close.
//
// Lock order: a tube lock (held by the queue around Append) before mu;
// wmu before manMu before mu; the id lease's lock before mu, never with
// manMu. The compactor calls the queue (Rewrite) holding no lock of the
// Log; subscribers are fired holding none.
type Log struct {
	dir  string
	opts Options
	log  zerolog.Logger
	lock *dirLock
	hook hooks

	// wmu serializes writing: whoever holds it owns the write state below
	// (and appends to cur). It is held across write(2), never across an
	// fsync. Open and Close own the write state while no one else runs.
	wmu       sync.Mutex
	wbuf      []byte       // the chunk being encoded
	wchunk    []chunkEntry // the records in the chunk
	wcuts     []bodyCut    // the bodies gathered into the chunk (not in wbuf)
	wiov      [][]byte     // the chunk's buffers for writev
	wsize     int          // the chunk's bytes, gathered bodies included
	tailBytes int64        // bytes in the current segment file

	// Sync-goroutine-owned (Close owns them once it has stopped).
	syncC      <-chan time.Time
	syncStop   func() bool
	syncDue    bool
	tickC      <-chan time.Time // the backstop: write what no caller flushed
	tickStop   func() bool
	lastSeen   uint64 // nextSeq at the previous backstop look
	notified   uint64 // Committed as last announced to the subscribers
	manFailed  bool   // the last manifest update failed (logged once)
	syncedTail uint64 // every segment before this one is fsynced and closed

	manMu sync.Mutex // serializes manifest writes (the sync goroutine's and the id lease's); after wmu, before mu
	man   manifest   // what DIR/manifest says; guarded by manMu

	lease      *idLease // hands out job ids (lease.go)
	leaseFound uint64   // the id lease the manifest held at Open
	leaseDown  bool     // recording a lease failed (disk full), logged once; under the lease's lock
	manDamaged bool     // the manifest was damaged and ignored (salvage)

	mu   sync.Mutex
	cond *sync.Cond // on mu: durability, truncation or failure state changed

	pending      recQueue // appended, not yet taken by a writer
	pendingBytes int64
	nextSeq      uint64
	nextIndex    uint64
	watching     bool // the sync goroutine's backstop timer runs: Append need not wake it

	cur     appendFile   // the segment file appended to (written under wmu and mu)
	retired []retiredSeg // full segments the sync goroutine has yet to fsync and close
	newSeg  bool         // a segment file was created since the last directory fsync

	jobs     jobLocs           // live job -> its latest whole record
	live     int64             // bytes of the latest whole record of every live job
	policyAt map[string]uint64 // tube -> wal index of its latest policy record
	maxID    uint64
	segs     segList
	logStart uint64 // first index the log claims to hold (metas carry it)

	writtenIndex, writtenSeq uint64
	durableIndex, durableSeq uint64
	metaDurable              uint64 // durable mark of the last meta taken
	forceSync                uint64 // the compactor needs this index fsynced
	truncWant, truncMeta     uint64 // requested front truncation, after meta truncMeta
	truncDone                uint64
	truncErr                 error

	compactAfter int64 // back-off: no compaction before the log holds this many bytes

	lowSpace    bool      // the reserve was released: only deletes, updates and compaction
	leaseShort  bool      // no id lease could be recorded (disk full): puts are refused
	lowSpent    int64     // bytes written since
	reserveHeld bool      // DIR/reserve is in place
	lastRetry   time.Time // last attempt to re-create the space reserve

	failed   error // the journal is dead
	closing  bool  // Close has begun
	closed   bool  // the final flush has begun: Append refuses
	started  bool  // Replay has begun
	running  bool  // the sync and compaction goroutines run
	closeErr error
	img      *image // from Open until Replay

	migrated, written int64
	metrics           walMetrics // for monitoring (metrics.go)

	rewriting atomic.Uint64 // job id the compactor is moving, 0 if none
	committed atomic.Uint64
	appended  atomic.Uint64 // the last sequence number handed out by Append
	flushed   atomic.Uint64 // the last sequence number written (writtenSeq)
	failErr   atomic.Pointer[error]

	wake          chan struct{}
	compactWake   chan struct{}
	stopWriter    chan struct{}
	stopCompactor chan struct{}
	writerDone    chan struct{}
	compactorDone chan struct{}

	subMu sync.Mutex
	subs  []func()
}

// pendingRec is a record waiting for a writer. A meta record has isMeta
// set and its fields in m.
type pendingRec struct {
	rec    jobs.Record
	index  uint64
	seq    uint64
	m      meta
	isMeta bool
}

// chunkEntry is one record encoded in the writer's chunk.
type chunkEntry struct {
	index, seq uint64
	size       int32 // bytes in the segment, framing included
	isMeta     bool
}

// retiredSeg is a full segment file the writer has moved past: the sync
// goroutine fsyncs and closes it. Every entry up to lastIndex (and sequence
// number lastSeq) is in it or in an older file.
type retiredSeg struct {
	f                  appendFile
	lastIndex, lastSeq uint64
}

// hooks are seams for tests; the zero value means the real thing.
type hooks struct {
	// openSegment opens a segment file for appending (create: a new, empty
	// one).
	openSegment func(path string, create bool) (appendFile, error)
	// cutFront removes every entry before index from the front of the log
	// (a compaction's truncation) and returns the new first segment.
	cutFront    func(l *Log, index uint64) (segment, error)
	syncDir     func(dir string) error
	makeReserve func(path string, size int64) error
	newTimer    func(d time.Duration) (<-chan time.Time, func() bool) // the -f timer
	newTick     func(d time.Duration) (<-chan time.Time, func() bool) // the backstop
	now         func() time.Time
	// writeManifest replaces DIR/manifest durably.
	writeManifest func(dir string, m manifest) error
}

func realTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

func (h *hooks) fill() {
	if h.openSegment == nil {
		h.openSegment = openSegment
	}
	if h.cutFront == nil {
		h.cutFront = (*Log).cutFront
	}
	if h.syncDir == nil {
		h.syncDir = syncDir
	}
	if h.makeReserve == nil {
		h.makeReserve = writeReserve
	}
	if h.newTimer == nil {
		h.newTimer = realTimer
	}
	if h.newTick == nil {
		h.newTick = realTimer
	}
	if h.now == nil {
		h.now = time.Now
	}
	if h.writeManifest == nil {
		h.writeManifest = writeManifest
	}
}

// Stats are the log's figures for the server's stats document.
type Stats struct {
	// OldestIndex and CurrentIndex name the oldest and the current segment
	// files (binlog-oldest-index, binlog-current-index): a segment file is
	// named after the index of its first entry.
	OldestIndex, CurrentIndex int
	// Migrated counts jobs moved forward by compaction
	// (binlog-records-migrated); Written counts job records written,
	// migrations included (binlog-records-written). Both since Open.
	Migrated, Written int64
}

// Open locks dir (which must exist), reads and verifies every segment,
// repairs a torn tail (logging what was dropped) and refuses a log damaged
// anywhere else, naming the file and offset, unless opts.Salvage. The jobs
// found are handed to the queue by Replay; nothing is written for the queue
// before that.
func Open(dir string, opts Options) (*Log, error) {
	return openLog(dir, opts, hooks{})
}

func openLog(dir string, opts Options, h hooks) (*Log, error) {
	opts, err := opts.normalize()
	if err != nil {
		return nil, err
	}
	if info, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("wal: %w", err)
	} else if !info.IsDir() {
		return nil, fmt.Errorf("wal: %s is not a directory", dir)
	}
	lk, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	contents, err := readContents(dir)
	if err == nil {
		err = contents.check(dir)
	}
	if err != nil {
		lk.unlock()
		return nil, err
	}
	if contents.raft {
		opts.Logger.Warn().Str("dir", dir).
			Msg("the directory holds a cluster member's raft log; a single-node server does not read its jobs")
	}
	h.fill()
	l := &Log{
		dir: dir, opts: opts, log: opts.Logger, lock: lk, hook: h,
		wake:          make(chan struct{}, 1),
		compactWake:   make(chan struct{}, 1),
		stopWriter:    make(chan struct{}),
		stopCompactor: make(chan struct{}),
		writerDone:    make(chan struct{}),
		compactorDone: make(chan struct{}),
	}
	l.cond = sync.NewCond(&l.mu)
	l.segs.size = opts.SegmentSize
	if err := l.load(); err != nil {
		if l.cur != nil {
			l.cur.Close()
		}
		lk.unlock()
		return nil, err
	}
	return l, nil
}

// Committed implements jobs.Journal. Safe for concurrent use; no locks.
func (l *Log) Committed() (uint64, error) {
	c := l.committed.Load()
	if e := l.failErr.Load(); e != nil {
		return c, *e
	}
	return c, nil
}

// Subscribe implements jobs.Journal: fn runs on the sync goroutine, with
// no lock of the Log held, after Committed changed (or the journal failed;
// then possibly on the goroutine whose write failed). With -f MS and -F a
// change is committed by the Flush that writes it, and fn runs only by the
// time the sync goroutine next looks (within MS, or the backstop's
// period): callers that wait flush first (jobs.Flusher) and find their
// change committed. fn must not block.
func (l *Log) Subscribe(fn func()) {
	l.subMu.Lock()
	l.subs = append(l.subs, fn)
	l.subMu.Unlock()
}

func (l *Log) notify() {
	l.subMu.Lock()
	subs := l.subs
	l.subMu.Unlock()
	for _, fn := range subs {
		fn()
	}
}

// File implements jobs.Journal: the name (first index) of the segment file
// holding job id's latest whole record, or 0. A record not yet written
// reports the current segment. Safe for concurrent use.
func (l *Log) File(id uint64) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	index, _, ok := l.jobs.get(id)
	if !ok {
		return 0
	}
	if index > l.writtenIndex {
		return int(l.segs.tail().start)
	}
	return int(l.segs.find(index))
}

// Stats returns the log's figures. Safe for concurrent use.
func (l *Log) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Stats{
		OldestIndex:  int(l.segs.segs[0].start),
		CurrentIndex: int(l.segs.tail().start),
		Migrated:     l.migrated,
		Written:      l.written,
	}
}

// signal wakes a goroutine waiting on c without ever blocking.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// msSince is the time since start in milliseconds, the unit of every
// "_ms" log field.
func msSince(start time.Time) float64 {
	return float64(time.Since(start)) / float64(time.Millisecond)
}
