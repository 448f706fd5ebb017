package wal

import (
	"fmt"
	"time"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal/binlog"
)

// ExportOptions configures ExportBinlog. The zero value is usable.
type ExportOptions struct {
	// FileSize is the size after which a new binlog file is started (zero:
	// binlog.DefaultFileSize, beanstalkd's -s default).
	FileSize int64
	// Now is the time the report's counts are taken at (zero: the clock).
	Now time.Time
}

// ExportReport says what ExportBinlog wrote.
type ExportReport struct {
	DirInfo
	// Counts are the jobs written, per state (as beanstalkd will show them).
	Counts binlog.Counts
	// Files are the binlog files written.
	Files []string
	// MaxBody is the largest body written, in bytes (beanstalkd must be
	// started with a -z above it, plus 2).
	MaxBody int
	// IDFloor is the id of the placeholder written (put, then deleted) so
	// that beanstalkd's ids continue above every id stalkd handed out; 0
	// when the highest live job already does that.
	IDFloor uint64
}

// ExportBinlog writes the jobs of the stalkd log in dir (stopped: see
// ReadJobs) into the directory to, which must exist and hold no binlog
// file, as version-7 binlog files beanstalkd 1.12 loads: every job with
// its id, tube, priority, TTR, state (reserved jobs as ready, as on any
// restart), delay and absolute deadline, creation time, counters and body.
// A buried job is written with one bury less, since beanstalkd counts one
// more when it loads it: it then shows what stalkd showed. When stalkd
// handed out ids above the highest live job, a placeholder job with the
// highest such id is written and deleted, so that beanstalkd's ids
// continue above it too (its next id is the highest it has seen plus one).
// Tube policies have no place in the format: DirInfo.Policies counts what
// is left behind.
func ExportBinlog(dir, to string, o ExportOptions) (ExportReport, error) {
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	w, err := binlog.NewWriter(to, o.FileSize)
	if err != nil {
		return ExportReport{}, err
	}
	var rep ExportReport
	var werr error
	var maxLive uint64
	info, err := ReadJobs(dir, func(r *jobs.Record) {
		if werr != nil {
			return
		}
		rec := exportRecord(r)
		maxLive = max(maxLive, r.ID)
		rep.MaxBody = max(rep.MaxBody, len(r.Body))
		switch (&binlog.Job{Rec: rec}).Restarted(now.UnixNano()).State {
		case binlog.Delayed:
			rep.Counts.Delayed++
		case binlog.Buried:
			rep.Counts.Buried++
		default:
			rep.Counts.Ready++
		}
		body := make([]byte, 0, len(r.Body)+2)
		werr = w.Put(r.Tube, binlog.ForRestart(rec), append(append(body, r.Body...), '\r', '\n'))
	})
	if err == nil {
		err = werr
	}
	if err == nil && info.NextID-1 > maxLive {
		rep.IDFloor = info.NextID - 1
		err = w.Put("default", binlog.Rec{ID: rep.IDFloor, TTR: int64(time.Second), State: binlog.Ready}, []byte("\r\n"))
		if err == nil {
			err = w.Delete(rep.IDFloor)
		}
	}
	files, cerr := w.Close()
	if err == nil {
		err = cerr
	}
	rep.DirInfo, rep.Files = info, files
	if err != nil {
		return rep, fmt.Errorf("wal: export: %w", err)
	}
	return rep, nil
}

// exportRecord is the Jobrec of a job as stalkd holds it.
func exportRecord(r *jobs.Record) binlog.Rec {
	rec := binlog.Rec{
		ID: r.ID, Pri: r.Pri, Delay: int64(r.Delay), TTR: int64(max(r.TTR, time.Second)), Created: r.Created,
		Reserves: r.Reserves, Timeouts: r.Timeouts, Releases: r.Releases, Buries: r.Buries, Kicks: r.Kicks,
		State: binlog.Ready,
	}
	switch r.State {
	case jobs.Delayed:
		rec.State, rec.Deadline = binlog.Delayed, r.Deadline
	case jobs.Buried:
		rec.State = binlog.Buried
	}
	return rec
}
