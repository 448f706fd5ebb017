// Package wal is stalkd's journal: a crash-safe write-ahead log of job
// records in segment files of github.com/tidwall/wal's format,
// implementing jobs.Journal and jobs.Flusher.
//
// # Usage
//
//	l, err := wal.Open(dir, wal.Options{SyncInterval: wal.DefaultSyncInterval, Logger: log})
//	if err != nil { ... }              // locked by another server, or corrupt
//	q := jobs.New(jobs.Config{Journal: l})
//	if err := l.Replay(q); err != nil { ... } // restores the jobs, starts the sync goroutine
//	... serve q; q.Flush() (writes what was appended), then reply to a
//	    change only once q.Committed(seq) says so ...
//	l.Close()                          // writes and fsyncs everything, unlocks
//
// # Durability
//
//	setting          a change is acknowledged          data reaches the disk
//	-f0              after the fsync that covers it    before the reply
//	-f MS (def. 50)  once written to the OS            within MS (a timer fsyncs)
//	-F               once written to the OS            when the OS decides
//	                                                   (a full segment: once
//	                                                   the next one starts)
//
// Whatever the setting, a crash of the process alone (SIGKILL) loses
// nothing acknowledged; a crash of the machine loses at most the last MS
// of acknowledged changes with -f MS, and anything with -F. Nothing is
// ever acknowledged that was not written. cmd/stalkd's crash test kills
// the server at each setting; the power-loss tests here (powerloss_test.go)
// cut the files back to their last fsync under a running log.
//
// # Ids never repeat
//
// Whatever is lost from the log's end (the unsynced tail after a machine
// crash, a segment cut, emptied or deleted and then salvaged), no job id is
// handed out twice. The Log is the queue's id source (jobs.IDSource): it
// leases ids in blocks, recording each block's end in DIR/manifest
// ("id_lease") with an fsync before any id of the block is handed out,
// whatever -f/-F say. At Open ids continue at max(highest id in the
// records, lease end) + 1, so after a crash they skip to the lease end. A
// clean Close records the last id handed out instead: restarts burn no ids.
//
// Cost: one manifest write and fsync (file and directory) per block, never
// per put. Blocks start at 1024 ids; while each lasts less than a second
// the next is at least twice as large, or what the rate seen would use in
// a second if that is more, up to 2^20 (they halve when one lasts over a
// minute), so a crash burns at most one block. The next block is recorded
// in the background when half of the current one is used; a put waits for
// that fsync only if it runs out first. Handing out an id otherwise costs
// two atomic operations and no lock. No put is written with an id no
// recorded block covers: when the disk is too full to record a block, puts
// get OUT_OF_MEMORY (ErrNoSpace) until a retry, at most once a second,
// succeeds; any other failure to record one kills the journal, like a
// failed fsync. A manifest damaged and ignored under Salvage loses the
// lease: ids then continue 2^21 above the records left, which is safe if
// the records lost named fewer ids than that (said at error level).
//
// Compatibility: the manifest is version 2 since the lease (version 1, or
// none at all, is read and upgraded). A build from before the lease refuses
// a version 2 manifest as damaged: downgrading needs -S, or deleting
// DIR/manifest (losing the lease: ids may then repeat after a lost tail).
//
// # Format
//
// Each entry holds one record: a CRC32-C checksum, a kind and
// its fields (format.go is the specification, with the format's own kind
// and state numbers; golden fixtures in testdata/ pin it, and
// AppendRecord/DecodeRecord are its public API): a put carries the whole job, an update every
// field but tube and body, a delete the id, a clear (clear-tube) the ids of
// every job it removes, in one record. A meta record follows each fsync
// (with the next records written) and precedes each front truncation: the highest entry
// known fsynced (so damage the fsync had covered is told apart from a
// torn write), the first entry the log must still hold (a missing head
// segment is detected), and the highest job id ever logged (ids continue
// above it, even when compaction dropped every record of the newest jobs). A
// segment file is named after the index of its first entry; that number is
// what stats-job reports as "file" and stats as binlog-*-index.
//
// The files are tidwall/wal's (a directory of segments named by their first
// index, each entry a uvarint length and the data): tidwall/wal reads what
// this package writes (TestTidwallReadsTheLog) and finishes a front
// truncation a crash interrupted, at Open. The journal writes the segments
// itself (writer.go): tidwall/wal holds its mutex across Sync and fsyncs a
// closed segment inside WriteBatch, which would put an fsync on the event
// loop, and keeps an image of the tail segment in memory, grown by append
// (two thirds of the bytes a server with the log allocated, see
// benchmarks/BENCHMARKS.md). The journal never reads entries back while
// running, so it keeps no image.
//
// # Writing and group commit
//
// Append does no I/O and waits for nothing: under a short mutex it
// numbers the record, notes where the job's whole record will be, and
// queues it. Flush (jobs.Flusher) writes everything queued, on the caller's
// goroutine: a server's event loop calls it at the end of each read,
// before it replies, so a batch of commands costs one write(2) into the
// page cache (one per chunk of at most a quarter of the space reserve), as
// in beanstalkd; waiters call it before they wait. Writers are serialized
// by a mutex that is never held across an fsync. With -f MS and -F a
// record is committed once written: the replies go out in the same
// callback. The fsyncs are the sync goroutine's: with -f0 each write wakes
// it, it fdatasyncs what was written and then publishes Committed and
// calls the subscribers; records written while it syncs form the next
// group, so one fsync acknowledges every waiting client. A record no one
// flushes (a timer's, a compaction's) is written by the sync goroutine
// within 100 ms.
//
// # Space
//
// Compaction keeps the log within about 2 x live data + 2 segments,
// whatever the workload: see compact.go. A file DIR/reserve of real blocks
// (SegmentSize, clamped to 64 KiB..64 MiB) is kept; when a write fails
// because the disk is full, the reserve is deleted and the write retried,
// puts get OUT_OF_MEMORY at once while deletes, updates and compaction keep
// being logged, and once compaction frees segments the reserve is written
// again and puts resume. Any other write error, an fsync error or a second
// full-disk failure kills the journal: Committed reports the error, every
// later Append fails with jobs.ErrJournal, and the log loudly says so. The
// segment is cut back to its last complete record first, so the next
// start finds a clean log (neither step fsyncs: the writer may be an event
// loop; a cut a crash loses is a torn tail, repaired at Open).
//
// # Recovery
//
// Open reads every segment and checks every checksum. Damage at the end of
// the last segment that no later meta proves was fsynced is a torn write:
// it is cut off, with a warning naming the file, offset and bytes dropped;
// every complete record before it is kept. The log knows where it ends
// from DIR/manifest (see manifest.go), rewritten atomically at Open, when
// a new segment's predecessors are fsynced, when the first entry of a new
// last segment is fsynced, for each block of ids leased and at Close (the id lease, above):
// a last segment file deleted, emptied or cut before what the
// manifest vouches for is damage, not a torn tail. Any other damage (a
// checksum mismatch, a missing segment, first, middle or last) refuses to
// start with an error wrapping
// ErrCorrupt that names the file and offset, unless Options.Salvage: then
// every readable record is kept, the damaged files are moved to
// DIR/salvage-<time>/, and a fresh log is written. A second server on the
// same directory is refused (an flock on DIR/lock).
//
// # beanstalkd's binlog, and files that are not the log's
//
// ImportBinlog, called before Open (the daemon and embed.Open do), turns a
// directory holding beanstalkd's binlog.N files and no log into a log
// holding every job beanstalkd would restore, in one durable step (see
// import.go), keeping the binlog files in DIR/beanstalkd-binlog.imported/.
// Open refuses a directory holding anything it does not write (listed in
// dirfiles.go), binlog files included, with ErrForeignFiles naming them: it
// never starts empty beside jobs it cannot see. DIR/lock is also locked
// with fcntl, as beanstalkd locks it, so neither server starts on a
// directory the other holds. ReadJobs and ExportBinlog read a stopped
// server's log without writing, for stalkctl's way back to beanstalkd.
//
// # Logging
//
// The Log logs to Options.Logger, whose level is the only verbosity
// control: info for opening and restoring, warn and error for damage,
// repairs and failures, debug for each compaction round. It follows the
// convention every package of stalkd shares: messages are lowercase and
// carry no package prefix (the program sets the "component" field when it
// hands out the logger: cmd/stalkd and embed.Open give component=wal);
// field names are snake_case, with units in the name (took_ms, a float of
// milliseconds; size_bytes, offset_bytes, dropped_bytes); entries of the log
// are named by index (index, first_index), jobs by job_id or next_id;
// errors go through Event.Err. Each failure is logged once, where it is
// handled: a write error that kills the journal is the single "journal
// failed" line, with the cause.
//
// # Concurrency and lock order
//
// Append, Flush, Committed, Subscribe, File, Stats, NextID and
// EnsureNextID are safe for concurrent use. The queue calls Append holding
// a tube lock, so the order is: tube lock, then Log.mu. Flush is called
// with no queue lock held and takes Log.wmu (the writers' mutex, held
// across write(2) only) before Log.mu. Manifest writes (the sync
// goroutine's and the id lease's) are serialized by Log.manMu, taken after
// wmu and before Log.mu. The lease's own lock may be held while taking
// Log.mu, never manMu (it records a block holding neither). The compactor
// calls Queue.Rewrite holding no lock of the Log; subscribers are fired
// holding none. The writer (whoever holds wmu) appends to the current
// segment file; only the sync goroutine fsyncs, closes and deletes
// segment files once Replay has started.
package wal
