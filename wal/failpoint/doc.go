// Package failpoint is the control of the faults a test build of stalkd
// can inject into its own disk and clock: a build with -tags failpoints
// compiles hooks into package wal (the job log's writes and fsyncs) and
// package wal/raft (the raft log's stores, the queue's clock) that ask
// this package before they act. A production build has no such hook and
// does not link this package (the robustness suite checks both with go
// list -deps and the binary's symbols).
//
// # Control
//
// The process reads the file named by $STALKD_FAILPOINTS (no variable:
// every fault is off) every 10 ms. Each line is "NAME VALUE"; a name
// missing from the file is off:
//
//	wal.sync stall 3s    every fsync of the job log takes 3 s longer
//	wal.sync eio         every fsync of the job log fails with EIO
//	wal.write enospc     every write of the job log fails with ENOSPC
//	raft.store stall 2s  every store of raft log entries takes 2 s longer
//	raft.store enospc    every store of raft log entries fails with ENOSPC
//	raft.store eio       ... with EIO
//	clock +1h            the wall clock reads 1 h ahead (-1h: behind)
//
// A line "gen N" names the version; once the process has read a version
// it writes N to the file FILE.ack, so that the test knows the faults are
// in force. Each change is logged on stderr as a JSON line
// ("failpoints set", component failpoint) like the server's own.
//
// # Clock
//
// The clock offset is what a wall clock stepped by that much would read.
// The queue's clock (jobs.SystemClock) reads the wall clock once, when
// made, and then counts on the monotonic clock: so a step changes nothing
// in a running queue, and a queue made later (a restart) starts from the
// stepped wall time. Clock follows that contract.
//
// # Concurrency
//
// Every function is safe for concurrent use. The first call reads the
// control file (faults in force at start apply from the first operation)
// and starts the goroutine that reads it from then on.
package failpoint
