// Package binlog reads and writes beanstalkd's binlog: the files
// (binlog.1, binlog.2, ...) that beanstalkd keeps in its -b directory. It
// is how stalkd takes over a beanstalkd's jobs (package wal imports them
// on start) and how an operator goes back (stalkctl binlog export writes
// files beanstalkd 1.12 loads). stalkd's own log is another format
// (package wal); this one is an input and an output, never trusted.
//
// # Reading
//
//	d, err := binlog.ReadDir(dir, 0) // changes nothing on disk
//	for _, j := range d.Jobs {        // live jobs, in order of first appearance
//		r := j.Restarted(now)          // what 1.12 shows once it has replayed it
//		... j.Tube, j.Body (with its "\r\n"), r.State, r.Pri, r.Created ...
//	}
//	for _, p := range d.Problems { ... p.Path, p.Offset, p.Err ... }
//
// ReadDir and Replayer replay exactly as beanstalkd 1.12 does at startup
// (file.c's readrec and readrec5, walg.c's walread, prot.c's prot_replay):
// format versions 7 (beanstalkd 1.5 to 1.13) and 5 (1.4.x); full and short
// records; a delete is a short record with state Invalid; the zero tail
// ends a file; a missing file is skipped; a damaged file is read up to the
// damage (the Problem names the file and the offset) and the next file is
// read; reserved jobs come back ready, buried ones count one more bury,
// delayed ones keep their absolute deadline. format.go documents the
// layout. Files are native-endian C structs of a 64-bit machine: a 32-bit
// beanstalkd's files are not read.
//
// Input is untrusted: no file makes the reader panic or allocate more than
// the file's own size (fuzz/binlog_fuzz_test.go).
//
// # Writing
//
// Writer writes version-7 files into an empty directory: one full record
// per job (the writing side's state, priority, times and counters), and
// Delete records. AppendFull, AppendShort, AppendFull5 and AppendShort5
// build records by hand, for tests and tools.
//
// # Imports and concurrency
//
// The standard library only. Functions are safe for concurrent use; a
// Replayer and a Writer are used by one goroutine at a time.
package binlog
