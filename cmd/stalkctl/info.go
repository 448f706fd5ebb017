package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"

	"github.com/stalkd/stalkd/cmd/stalkctl/internal/client"
)

// statsResult prints a stats document.
type statsResult struct{ s client.Stats }

func (r statsResult) print(w io.Writer) { writeStats(w, r.s) }
func (r statsResult) json() any         { return orderedStats(r.s) }

func runStats(_ context.Context, _ *app, c *client.Conn, _ *invocation) (result, error) {
	s, err := c.Stats()
	return statsResult{s}, err
}

func runStatsTube(_ context.Context, _ *app, c *client.Conn, inv *invocation) (result, error) {
	s, err := c.StatsTube(inv.args[0])
	return statsResult{s}, err
}

// tubeStats lists every tube's stats, sorted by name.
func tubeStats(c *client.Conn) ([]client.Stats, error) {
	names, err := c.ListTubes()
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	all, err := c.StatsTubes(names)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, s := range all {
		if s != nil { // vanished between list-tubes and stats-tube
			out = append(out, s)
		}
	}
	return out, nil
}

// tubesResult is the tubes table.
type tubesResult struct{ tubes []client.Stats }

func runTubes(_ context.Context, _ *app, c *client.Conn, _ *invocation) (result, error) {
	t, err := tubeStats(c)
	return tubesResult{t}, err
}

// tubeColumns are the tubes table's columns after the name: header and
// stats-tube key.
var tubeColumns = [][2]string{
	{"READY", "current-jobs-ready"},
	{"URGENT", "current-jobs-urgent"},
	{"RESERVED", "current-jobs-reserved"},
	{"DELAYED", "current-jobs-delayed"},
	{"BURIED", "current-jobs-buried"},
	{"TOTAL", "total-jobs"},
	{"USING", "current-using"},
	{"WATCHING", "current-watching"},
	{"WAITING", "current-waiting"},
}

func (r tubesResult) print(w io.Writer) {
	var t table
	head := []string{"TUBE"}
	for _, c := range tubeColumns {
		head = append(head, c[0])
	}
	t.add(append(head, "PAUSED")...)
	for _, s := range r.tubes {
		name, _ := s.Get("name")
		row := []string{name}
		for _, c := range tubeColumns {
			row = append(row, strconv.FormatInt(s.Int(c[1]), 10))
		}
		t.add(append(row, pauseCell(s))...)
	}
	t.write(w, 0)
}

// pauseCell shows a paused tube's time left ("12s"), or "-".
func pauseCell(s client.Stats) string {
	if s.Int("pause") == 0 {
		return "-"
	}
	return fmt.Sprintf("%ds", s.Int("pause-time-left"))
}

func (r tubesResult) json() any {
	out := make([]orderedStats, len(r.tubes))
	for i, s := range r.tubes {
		out[i] = orderedStats(s)
	}
	return out
}

// parseID parses a job id.
func parseID(s string) (uint64, error) {
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, usageErrorf("%q is not a job id", s)
	}
	return id, nil
}

// peekResult is a job: id, body and (if it still existed) its stats.
type peekResult struct {
	job   client.Job
	stats client.Stats
	dead  *deadLetterInfo // with --admin: where a dead letter came from, and why
}

func runPeek(ctx context.Context, a *app, c *client.Conn, inv *invocation) (result, error) {
	var job client.Job
	var err error
	switch what := inv.args[0]; what {
	case "ready", "delayed", "buried":
		if err := c.Use(inv.tube); err != nil {
			return nil, err
		}
		job, err = c.PeekState(what)
	default:
		id, perr := parseID(what)
		if perr != nil {
			return nil, usageErrorf("peek: want a job id or ready, delayed or buried, not %q", what)
		}
		job, err = c.Peek(id)
	}
	if err != nil {
		return nil, err
	}
	s, _ := c.StatsJob(job.ID) // the job may be gone already: show what we have
	return peekResult{job, s, peekDeadLetter(ctx, a, inv, job.ID)}, nil
}

func (r peekResult) print(w io.Writer) {
	fmt.Fprintf(w, "id: %d\n", r.job.ID)
	for _, f := range r.stats {
		if f.Key != "id" {
			fmt.Fprintf(w, "%s: %s\n", f.Key, f.Value)
		}
	}
	if d := r.dead; d != nil {
		fmt.Fprintf(w, "dead-letter-origin: %s\n", d.Origin)
		fmt.Fprintf(w, "dead-letter-reason: %s (%s)\n", d.Reason, d.ReasonText)
		fmt.Fprintf(w, "dead-lettered-at: %s (%s ago)\n", d.At, time.Duration(d.AgeSeconds*float64(time.Second)).Round(time.Second))
	}
	fmt.Fprintf(w, "body (%d bytes):\n", len(r.job.Body))
	if printable(r.job.Body) {
		w.Write(r.job.Body)
		if n := len(r.job.Body); n > 0 && r.job.Body[n-1] != '\n' {
			io.WriteString(w, "\n")
		}
		return
	}
	fmt.Fprintf(w, "%s\n", strconv.Quote(string(r.job.Body)))
}

func (r peekResult) json() any {
	out := map[string]any{"id": r.job.ID, "bytes": len(r.job.Body)}
	if r.stats != nil {
		out["stats"] = orderedStats(r.stats)
	}
	if r.dead != nil {
		out["dead_letter"] = r.dead
	}
	if printable(r.job.Body) {
		out["body"] = string(r.job.Body)
	} else {
		out["body_base64"] = base64.StdEncoding.EncodeToString(r.job.Body)
	}
	return out
}
