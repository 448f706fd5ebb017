package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/stalkd/stalkd/cmd/stalkctl/internal/client"
	"github.com/stalkd/stalkd/wal"
	"github.com/stalkd/stalkd/wal/binlog"
)

// binlogCommand reads and writes beanstalkd's binlog: inspect (what an
// import would bring in) and export (the way back to beanstalkd).
var binlogCommand = &command{
	name:     "binlog",
	synopsis: binlogSynopsis,
	help: "inspect: what stalkd -b DIR would import from beanstalkd's binlog there (changes nothing); " +
		"export: write the server's jobs (or a stopped stalkd's -b DIR's) as a binlog beanstalkd 1.12 loads",
	minArgs: 1, maxArgs: 2, flags: binlogFlags, check: checkBinlog, run: runBinlog,
	offline: func(inv *invocation) bool { return inv.args[0] == "inspect" || inv.fromDir != "" },
}

const binlogSynopsis = "inspect DIR | export --to DIR [--from-dir DIR] [--file-size N]"

func binlogFlags(fs *flag.FlagSet, inv *invocation) {
	fs.StringVar(&inv.to, "to", "", "export: the directory to write the binlog files into")
	fs.StringVar(&inv.fromDir, "from-dir", "", "export: a stopped stalkd's -b directory, instead of the server")
	fs.Int64Var(&inv.fileSize, "file-size", binlog.DefaultFileSize, "export: size at which a new binlog file starts (beanstalkd's -s)")
}

func checkBinlog(inv *invocation) error {
	switch {
	case inv.args[0] == "inspect" && len(inv.args) == 2 && inv.to == "" && inv.fromDir == "":
		return nil
	case inv.args[0] == "export" && len(inv.args) == 1 && inv.to != "":
		return nil
	}
	return fmt.Errorf("usage: stalkctl binlog %s", binlogSynopsis)
}

func runBinlog(ctx context.Context, a *app, c *client.Conn, inv *invocation) (result, error) {
	switch {
	case inv.args[0] == "inspect":
		return inspectBinlog(inv.args[1])
	case inv.fromDir != "":
		return exportFromDir(inv)
	}
	return exportFromServer(ctx, a, c, inv)
}

// inspectResult is what binlog inspect found.
type inspectResult struct {
	dir       string
	d         *binlog.Dir
	sum       binlog.Summary
	holder    int  // pid holding the directory's lock, 0 if none
	stalkdLog bool // the directory also holds a log of stalkd's
}

func inspectBinlog(dir string) (result, error) {
	d, err := binlog.ReadDir(dir, 0)
	if err != nil {
		return nil, err
	}
	r := inspectResult{dir: dir, d: d, sum: binlog.Summarize(d.Jobs, time.Now().UnixNano())}
	if r.holder, err = binlog.LockHolder(dir); err != nil {
		return nil, err
	}
	if r.stalkdLog, err = wal.HoldsLog(dir); err != nil {
		return nil, err
	}
	return r, nil
}

func (r inspectResult) print(w io.Writer) {
	d := r.d
	if len(d.Files) == 0 {
		fmt.Fprintf(w, "%s holds no beanstalkd binlog file (binlog.N): nothing to import\n", r.dir)
		return
	}
	var size int64
	for _, f := range d.Files {
		size += f.Size
	}
	fmt.Fprintf(w, "beanstalkd binlog in %s: %d files (%s .. %s), %s\n", r.dir, len(d.Files),
		filepath.Base(d.Files[0].Path), filepath.Base(d.Files[len(d.Files)-1].Path), bytesText(size))
	s := r.sum
	fmt.Fprintf(w, "jobs: %d (ready %d, delayed %d, buried %d; reserved jobs count as ready, as on any restart)\n",
		s.Total.Total(), s.Total.Ready, s.Total.Delayed, s.Total.Buried)
	if s.Total.Total() > 0 {
		fmt.Fprintf(w, "job ids: %d .. %d; stalkd's ids continue at %d\n", s.MinID, s.MaxID, d.MaxID+1)
	}
	if len(s.Tubes) > 0 {
		var t table
		t.add("TUBE", "READY", "DELAYED", "BURIED")
		for _, name := range s.TubeNames() {
			c := s.Tubes[name]
			t.add(name, strconv.Itoa(c.Ready), strconv.Itoa(c.Delayed), strconv.Itoa(c.Buried))
		}
		t.write(w, 0)
	}
	if len(d.Problems) > 0 {
		fmt.Fprintln(w, "damaged files (each is read up to the damage, as beanstalkd reads it; a file of an unknown version stops the import):")
		for _, p := range d.Problems {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	if d.MissingCount > 0 {
		fmt.Fprintf(w, "missing files (skipped, as beanstalkd skips them): %d, numbers %v\n", d.MissingCount, d.Missing)
	}
	if r.holder != 0 {
		fmt.Fprintf(w, "the directory is locked by pid %d (beanstalkd still running?): stop it before starting stalkd\n", r.holder)
	}
	if r.stalkdLog {
		fmt.Fprintln(w, "the directory also holds a log of stalkd's: stalkd refuses to start until the binlog files are moved out")
	} else {
		fmt.Fprintln(w, "nothing was changed; stalkd -b on this directory imports these jobs when it starts")
	}
}

func (r inspectResult) json() any {
	tubes := map[string]any{}
	for name, c := range r.sum.Tubes {
		tubes[name] = countsJSON(c)
	}
	var files []any
	for _, f := range r.d.Files {
		m := map[string]any{"path": f.Path, "number": f.N, "size": f.Size, "version": f.Version, "records": f.Records}
		if f.Problem != nil {
			m["damage"] = f.Problem.String()
		}
		files = append(files, m)
	}
	return map[string]any{
		"dir": r.dir, "files": files, "jobs": countsJSON(r.sum.Total), "tubes": tubes,
		"min_id": r.sum.MinID, "max_id": r.sum.MaxID, "next_id": r.d.MaxID + 1,
		"missing_files": r.d.Missing, "locked_by_pid": r.holder, "holds_stalkd_log": r.stalkdLog,
	}
}

func countsJSON(c binlog.Counts) map[string]int {
	return map[string]int{"ready": c.Ready, "delayed": c.Delayed, "buried": c.Buried, "total": c.Total()}
}

// bytesText renders a size for a person.
func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
