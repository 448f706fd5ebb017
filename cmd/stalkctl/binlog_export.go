package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/stalkd/stalkd/cmd/stalkctl/internal/client"
	"github.com/stalkd/stalkd/wal"
	"github.com/stalkd/stalkd/wal/binlog"
)

// exportResult is what binlog export wrote.
type exportResult struct {
	to       string
	files    []string
	counts   binlog.Counts
	reserved int    // reserved jobs written as ready
	vanished int    // jobs deleted while the export ran
	idFloor  uint64 // placeholder id written and deleted (0: none)
	policies int    // tubes whose policy is left behind
	maxBody  int    // the largest body written, in bytes
}

func (r exportResult) print(w io.Writer) {
	first, last := "", ""
	if len(r.files) > 0 {
		first, last = filepath.Base(r.files[0]), filepath.Base(r.files[len(r.files)-1])
	}
	fmt.Fprintf(w, "wrote %d jobs (ready %d, delayed %d, buried %d) into %s: %s .. %s\n",
		r.counts.Total(), r.counts.Ready, r.counts.Delayed, r.counts.Buried, r.to, first, last)
	if r.reserved > 0 {
		fmt.Fprintf(w, "%d reserved jobs were written as ready (as any restart makes them)\n", r.reserved)
	}
	if r.vanished > 0 {
		fmt.Fprintf(w, "%d jobs were deleted while the export ran and are not in it\n", r.vanished)
	}
	if r.idFloor > 0 {
		fmt.Fprintf(w, "beanstalkd's ids will continue above %d (a placeholder job was written and deleted)\n", r.idFloor)
	}
	if r.policies > 0 {
		fmt.Fprintf(w, "the tube policies of %d tubes are not carried over: beanstalkd has none\n", r.policies)
	}
	z := ""
	if r.maxBody+2 > 65535 {
		z = fmt.Sprintf(" -z %d", r.maxBody+2)
	}
	fmt.Fprintf(w, "start beanstalkd on it: beanstalkd -b %s%s\n", r.to, z)
}

func (r exportResult) json() any {
	return map[string]any{"to": r.to, "files": r.files, "jobs": countsJSON(r.counts), "reserved_as_ready": r.reserved,
		"vanished": r.vanished, "id_floor": r.idFloor, "policies_left_behind": r.policies, "max_body_bytes": r.maxBody}
}

// checkExportTo creates the destination if needed and refuses one that
// holds a log of stalkd's.
func checkExportTo(to string) error {
	if err := os.MkdirAll(to, 0o750); err != nil {
		return err
	}
	if own, err := wal.HoldsLog(to); err != nil {
		return err
	} else if own {
		return fmt.Errorf("%s holds a log of stalkd's: export into an empty directory", to)
	}
	return nil
}

// exportFromDir exports a stopped stalkd's -b directory (wal.ExportBinlog).
func exportFromDir(inv *invocation) (result, error) {
	if err := checkExportTo(inv.to); err != nil {
		return nil, err
	}
	rep, err := wal.ExportBinlog(inv.fromDir, inv.to, wal.ExportOptions{FileSize: inv.fileSize})
	if err != nil {
		return nil, err
	}
	return exportResult{to: inv.to, files: rep.Files, counts: rep.Counts, idFloor: rep.IDFloor,
		policies: rep.Policies, maxBody: rep.MaxBody}, nil
}

// maxListTube is the longest tube name whose jobs list-jobs can page
// through: the command line, with an offset of up to 7 digits, must fit
// the protocol's 224 bytes.
const maxListTube = 224 - len("list-jobs  reserved 9999999 1000\r\n")

// exportStates are the states exported from a server, each tube's jobs in
// the order list-jobs gives (a tube's buried jobs keep their order).
var exportStates = []string{"ready", "delayed", "buried", "reserved"}

// exportFromServer reads every job of a running stalkd over the protocol
// (list-jobs, stats-job, peek) and writes it. Times come to the second
// (stats-job's age and time-left): a delayed job's deadline is put just
// before the end of the second its time-left names, so it never becomes
// ready earlier than it would have.
func exportFromServer(ctx context.Context, a *app, c *client.Conn, inv *invocation) (result, error) {
	if err := checkExportTo(inv.to); err != nil {
		return nil, err
	}
	type ref struct {
		tube string
		id   uint64
	}
	var all []ref
	tubes, err := c.ListTubes()
	if err != nil {
		return nil, err
	}
	for _, tube := range tubes {
		if len(tube) > maxListTube {
			return nil, fmt.Errorf("tube %q: its name is too long to list its jobs over the protocol "+
				"(list-jobs and the name must fit the protocol's 224-byte line): stop the server and export its directory with --from-dir", tube)
		}
		for _, state := range exportStates {
			ids, err := listIDs(c, tube, state, 0, 0)
			if errors.Is(err, client.ErrUnknownCommand) {
				return nil, fmt.Errorf("the server has no list-jobs, so it is not stalkd (a beanstalkd's jobs are in its own binlog): %w", err)
			}
			if err != nil {
				return nil, err
			}
			for _, id := range ids {
				all = append(all, ref{tube, id})
			}
		}
	}
	w, err := binlog.NewWriter(inv.to, inv.fileSize)
	if err != nil {
		return nil, err
	}
	r := exportResult{to: inv.to}
	b := newBar(a.stderr, a.stderrTTY, "export", len(all))
	for i, j := range all {
		if err := ctx.Err(); err != nil {
			b.end()
			return nil, fmt.Errorf("export interrupted after %d of %d jobs (the directory holds them; delete it to start again)", i, len(all))
		}
		err := exportJob(c, w, j.tube, j.id, &r)
		if errors.Is(err, client.ErrNotFound) {
			r.vanished++
			continue
		}
		if err != nil {
			b.end()
			return nil, err
		}
		b.show(i + 1)
	}
	b.end()
	if r.files, err = w.Close(); err != nil {
		return nil, err
	}
	return r, nil
}

// exportJob writes job id of tube, as the server shows it now.
func exportJob(c *client.Conn, w *binlog.Writer, tube string, id uint64, r *exportResult) error {
	st, err := c.StatsJob(id)
	if err != nil {
		return err
	}
	job, err := c.Peek(id)
	if err != nil {
		return err
	}
	now := time.Now().UnixNano()
	sec := func(key string) int64 { return st.Int(key) * int64(time.Second) }
	u := func(key string) uint32 { return uint32(st.Int(key)) }
	rec := binlog.Rec{
		ID: id, Pri: u("pri"), Delay: sec("delay"), TTR: sec("ttr"), Created: now - sec("age"),
		Reserves: u("reserves"), Timeouts: u("timeouts"), Releases: u("releases"), Buries: u("buries"), Kicks: u("kicks"),
		State: binlog.Ready,
	}
	state, _ := st.Get("state")
	switch state {
	case "delayed":
		rec.State, rec.Deadline = binlog.Delayed, now+sec("time-left")+int64(time.Second)-int64(time.Millisecond)
		r.counts.Delayed++
	case "buried":
		rec.State = binlog.Buried
		r.counts.Buried++
	case "reserved":
		r.reserved++
		r.counts.Ready++
	default:
		r.counts.Ready++
	}
	r.maxBody = max(r.maxBody, len(job.Body))
	return w.Put(tube, binlog.ForRestart(rec), append(job.Body, '\r', '\n'))
}
