package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/stalkd/stalkd/cmd/stalkctl/internal/client"
)

// migrateCommand moves every job of a running beanstalk server into the
// server stalkctl talks to, over the protocol.
var migrateCommand = &command{
	name:     "migrate",
	synopsis: "--from HOST:PORT [--to ADDR] [--state FILE] [--map FILE]",
	help: "move every ready, delayed and buried job of a running beanstalkd (or any beanstalk server) into this server, " +
		"deleting each from the source once this server has stored it; resumable; prints the old -> new id map",
	maxArgs: 0, flags: migrateFlags, check: checkMigrate, run: runMigrate,
}

func migrateFlags(fs *flag.FlagSet, inv *invocation) {
	fs.StringVar(&inv.from, "from", "", "the source server")
	fs.StringVar(&inv.addr, "to", inv.addr, "the destination server (the same as -a)")
	fs.StringVar(&inv.stateFile, "state", "", "the resume file (default stalkd-migrate-HOST-PORT.jsonl)")
	fs.StringVar(&inv.mapFile, "map", "", "also write the id map as JSON to this file")
}

func checkMigrate(inv *invocation) error {
	if inv.from == "" {
		return errors.New("migrate needs --from HOST:PORT (the server to move the jobs from)")
	}
	if inv.from == inv.addr {
		return fmt.Errorf("--from and --to are the same server (%s)", inv.addr)
	}
	if inv.stateFile == "" {
		inv.stateFile = "stalkd-migrate-" + strings.NewReplacer(":", "-", "/", "-").Replace(inv.from) + ".jsonl"
	}
	return nil
}

// moved is one line of the state file: job Old of the source is now job
// New of the destination. A line with New 0 is written before the copy
// (the job is in flight); Undo says a copy was deleted again (the source
// job had been taken by a worker meanwhile).
type moved struct {
	Old   uint64 `json:"old"`
	New   uint64 `json:"new"`
	Tube  string `json:"tube"`
	State string `json:"state"`
	Sum   string `json:"sha256,omitempty"` // of the body
	Undo  bool   `json:"undo,omitempty"`
}

// migrateResult is what a migration did (this run and the runs it resumed).
type migrateResult struct {
	moves     []moved // the id map, in order
	thisRun   int
	raced     int   // jobs a worker took at the source while they were copied: copy deleted
	reserved  int64 // jobs reserved at the source, left there
	stateFile string
}

func (r migrateResult) print(w io.Writer) {
	for _, m := range r.moves {
		fmt.Fprintf(w, "%d -> %d\t%s\t%s\n", m.Old, m.New, m.State, m.Tube)
	}
	fmt.Fprintf(w, "moved %d jobs in this run, %d in all (id map above; state in %s)\n", r.thisRun, len(r.moves), r.stateFile)
	if r.raced > 0 {
		fmt.Fprintf(w, "%d jobs were reserved by a worker at the source while being copied: left there, their copies deleted\n", r.raced)
	}
	if r.reserved > 0 {
		fmt.Fprintf(w, "%d jobs are reserved by workers at the source and were not moved: stop the workers, then run migrate again\n", r.reserved)
	}
}

func (r migrateResult) json() any {
	return map[string]any{"map": r.moves, "moved_this_run": r.thisRun, "moved": len(r.moves),
		"raced": r.raced, "reserved_left": r.reserved, "state_file": r.stateFile}
}

// runMigrate moves the jobs tube by tube: for each ready, then delayed,
// then buried job of the source (peek-ready, peek-delayed, peek-buried,
// and stats-job for its priority, TTR and remaining delay), it records
// the job as in flight in the state file, puts it into the destination
// (a buried job is put delayed, reserved with reserve-job and buried, so
// that no worker sees it ready), records the new id, and only then deletes
// it from the source. Killed anywhere, a run resumes from the state file:
// a source job already copied is deleted, not copied again.
func runMigrate(ctx context.Context, a *app, dst *client.Conn, inv *invocation) (result, error) {
	dctx, cancel := context.WithTimeout(ctx, a.dialTimeout)
	src, err := client.Dial(dctx, inv.from)
	cancel()
	if err != nil {
		return nil, &connectError{addr: inv.from, err: err, hint: "--from"}
	}
	defer src.Close()
	src.Timeout = a.ioTimeout
	m := &migration{src: src, dst: dst, res: migrateResult{stateFile: inv.stateFile}}
	if err := m.resume(inv.stateFile); err != nil {
		return nil, err
	}
	defer m.state.Close()
	tubes, err := src.ListTubes()
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	total := 0
	for _, tube := range tubes {
		s, err := src.StatsTube(tube)
		if err != nil && !errors.Is(err, client.ErrNotFound) {
			return nil, fmt.Errorf("source: %w", err)
		}
		total += int(s.Int("current-jobs-ready") + s.Int("current-jobs-delayed") + s.Int("current-jobs-buried"))
		m.res.reserved += s.Int("current-jobs-reserved")
	}
	m.bar = newBar(a.stderr, a.stderrTTY, "migrate", total)
	for _, tube := range tubes {
		if err := m.tube(ctx, tube); err != nil {
			m.bar.end()
			return nil, err
		}
	}
	m.bar.end()
	if inv.mapFile != "" {
		data, _ := json.MarshalIndent(m.res.moves, "", "  ")
		if err := os.WriteFile(inv.mapFile, append(data, '\n'), 0o644); err != nil {
			return nil, err
		}
	}
	return m.res, nil
}

// migration is one run. Not safe for concurrent use.
type migration struct {
	src, dst *client.Conn
	state    *os.File
	res      migrateResult
	bar      *bar
	inFlight *moved // the last line of the state file, if a copy was in flight
}

// resume reads the state file (creating it), finishes what a killed run
// left, and keeps the file open for appending.
func (m *migration) resume(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	m.state = f
	byOld := map[uint64]int{}
	var last *moved // the last line, when it records a copy
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var mv moved
		if json.Unmarshal(sc.Bytes(), &mv) != nil {
			continue // a line cut by a crash
		}
		last = nil
		switch {
		case mv.Undo:
			if i, ok := byOld[mv.Old]; ok {
				m.res.moves[i].Undo = true
			}
			m.inFlight = nil
		case mv.New == 0:
			m.inFlight = &mv
		default:
			byOld[mv.Old] = len(m.res.moves)
			m.res.moves = append(m.res.moves, mv)
			m.inFlight, last = nil, &mv
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	kept := m.res.moves[:0]
	for _, mv := range m.res.moves {
		if !mv.Undo {
			kept = append(kept, mv)
		}
	}
	m.res.moves = kept
	if m.inFlight != nil {
		if err := m.findCopy(m.inFlight); err != nil || m.inFlight.New == 0 {
			return err // not copied: the job is still at the source, and is moved as any other
		}
		last = m.inFlight
	}
	if last != nil {
		return m.deleteCopied(*last)
	}
	return nil
}

// deleteCopied deletes from the source the job the last run copied and
// was killed before deleting (the last line of the state file records its
// copy): if the source still has it, with the same body. Only that job:
// the source may have handed the other ids out again since (a beanstalkd
// restarted without its binlog starts again at 1).
func (m *migration) deleteCopied(mv moved) error {
	job, err := m.src.Peek(mv.Old)
	if errors.Is(err, client.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	if sum := sha256.Sum256(job.Body); fmt.Sprintf("%x", sum) != mv.Sum {
		return nil // another job with the same id
	}
	if err := m.src.Delete(mv.Old); err != nil && !errors.Is(err, client.ErrNotFound) {
		return fmt.Errorf("source: %w", err)
	}
	return nil
}

// findCopy looks for the copy of an in-flight job in the destination (a
// run killed between the put and recording it): a job of its tube above
// every id recorded, with the same body. Found, it is recorded.
func (m *migration) findCopy(mv *moved) error {
	var last uint64
	for _, x := range m.res.moves {
		last = max(last, x.New)
	}
	for _, state := range []string{"ready", "delayed", "buried"} {
		ids, err := listIDs(m.dst, mv.Tube, state, 0, 0)
		if errors.Is(err, client.ErrNotFound) || errors.Is(err, client.ErrUnknownCommand) {
			return nil // no such tube yet, or not stalkd: nothing to find
		}
		if err != nil {
			return err
		}
		for _, id := range ids {
			if id <= last {
				continue
			}
			job, err := m.dst.Peek(id)
			if err != nil {
				continue
			}
			if sum := sha256.Sum256(job.Body); fmt.Sprintf("%x", sum) == mv.Sum {
				mv.New = id
				return m.record(*mv)
			}
		}
	}
	return nil
}

// record appends a line to the state file and fsyncs it.
func (m *migration) record(mv moved) error {
	data, _ := json.Marshal(mv)
	if _, err := m.state.Write(append(data, '\n')); err != nil {
		return err
	}
	if err := m.state.Sync(); err != nil {
		return err
	}
	if mv.New != 0 && !mv.Undo {
		m.res.moves = append(m.res.moves, mv)
	}
	return nil
}

// tube moves every ready, delayed and buried job of one tube.
func (m *migration) tube(ctx context.Context, tube string) error {
	if err := m.src.Use(tube); err != nil {
		return fmt.Errorf("source: %w", err)
	}
	if err := m.dst.Use(tube); err != nil {
		return err
	}
	for _, state := range []string{"ready", "delayed", "buried"} {
		for {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("migrate interrupted after %d jobs this run: run it again to resume (%s)", m.res.thisRun, m.res.stateFile)
			}
			job, err := m.src.PeekState(state)
			if errors.Is(err, client.ErrNotFound) {
				break
			}
			if err != nil {
				return fmt.Errorf("source: %w", err)
			}
			if err := m.job(tube, job); err != nil {
				return err
			}
		}
	}
	return nil
}

// job moves one job of the source.
func (m *migration) job(tube string, job client.Job) error {
	st, err := m.src.StatsJob(job.ID)
	if errors.Is(err, client.ErrNotFound) {
		return nil // deleted meanwhile
	}
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	state, _ := st.Get("state")
	pri, ttr := uint32(st.Int("pri")), uint32(st.Int("ttr"))
	sum := sha256.Sum256(job.Body)
	if err := m.record(moved{Old: job.ID, Tube: tube, State: state, Sum: fmt.Sprintf("%x", sum)}); err != nil {
		return err
	}
	var id uint64
	switch state {
	case "buried":
		id, err = m.putBuried(pri, ttr, job.Body)
	case "delayed":
		// time-left is truncated to the second: one more never makes the job ready early.
		id, err = m.dst.Put(pri, uint32(max(st.Int("time-left"), 0)+1), ttr, job.Body)
	default:
		id, err = m.dst.Put(pri, 0, ttr, job.Body)
	}
	if err != nil {
		return fmt.Errorf("copy of job %d: %w (nothing deleted from the source)", job.ID, err)
	}
	mv := moved{Old: job.ID, New: id, Tube: tube, State: state, Sum: fmt.Sprintf("%x", sum)}
	if err := m.record(mv); err != nil {
		return err
	}
	err = m.src.Delete(job.ID)
	if errors.Is(err, client.ErrNotFound) {
		// A worker reserved it at the source meanwhile: it stays there.
		m.res.moves = m.res.moves[:len(m.res.moves)-1]
		m.res.raced++
		mv.Undo = true
		if err := m.dst.Delete(id); err != nil && !errors.Is(err, client.ErrNotFound) {
			return err
		}
		return m.record(mv)
	}
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	m.res.thisRun++
	m.bar.show(m.res.thisRun)
	return nil
}

// putBuried puts a job that is buried at once: put with the longest delay
// (no worker can reserve it), reserve-job, bury.
func (m *migration) putBuried(pri, ttr uint32, body []byte) (uint64, error) {
	id, err := m.dst.Put(pri, 1<<32-1, ttr, body)
	if err != nil {
		return 0, err
	}
	if _, err := m.dst.ReserveJob(id); err != nil {
		return 0, err
	}
	return id, m.dst.Bury(id, pri)
}
