package main

import (
	"context"
	"fmt"
	"io"

	"github.com/stalkd/stalkd/cmd/stalkctl/internal/client"
)

// message is a one-line result for a person and an object for a script.
type message struct {
	text string
	obj  map[string]any
}

func (m message) print(w io.Writer) { fmt.Fprintln(w, m.text) }
func (m message) json() any         { return m.obj }

func runPut(_ context.Context, a *app, c *client.Conn, inv *invocation) (result, error) {
	var body []byte
	if len(inv.args) == 1 && inv.args[0] != "-" {
		body = []byte(inv.args[0])
	} else {
		if a.term != nil { // a person at a terminal: say why we wait
			fmt.Fprintln(a.stderr, "reading the job body from stdin (end with Ctrl-D)")
		}
		b, err := io.ReadAll(a.stdin)
		if err != nil {
			return nil, fmt.Errorf("reading the body from stdin: %w", err)
		}
		body = b
	}
	if err := c.Use(inv.tube); err != nil {
		return nil, err
	}
	id, err := c.Put(uint32(inv.pri), uint32(inv.delay), uint32(inv.ttr), body)
	if err != nil {
		return nil, err
	}
	return message{
		text: fmt.Sprintf("inserted job %d into tube %q (%d bytes)", id, inv.tube, len(body)),
		obj:  map[string]any{"id": id, "tube": inv.tube, "bytes": len(body)},
	}, nil
}

func runKick(_ context.Context, _ *app, c *client.Conn, inv *invocation) (result, error) {
	n, err := parseCount(inv.args[0])
	if err != nil {
		return nil, err
	}
	if err := c.Use(inv.tube); err != nil {
		return nil, err
	}
	k, err := c.Kick(n)
	if err != nil {
		return nil, err
	}
	return message{
		text: fmt.Sprintf("kicked %s in tube %q", jobs(k), inv.tube),
		obj:  map[string]any{"kicked": k, "tube": inv.tube},
	}, nil
}

// runKickJob and runDelete act on one job by id.
var (
	runKickJob = jobAction("kicked", (*client.Conn).KickJob)
	runDelete  = jobAction("deleted", (*client.Conn).Delete)
)

// jobAction is a command that does one thing to the job whose id is its
// argument and reports it as "<done> job ID" (JSON: {"id": ID, done: true}).
func jobAction(done string, do func(*client.Conn, uint64) error) func(context.Context, *app, *client.Conn, *invocation) (result, error) {
	return func(_ context.Context, _ *app, c *client.Conn, inv *invocation) (result, error) {
		id, err := parseID(inv.args[0])
		if err != nil {
			return nil, err
		}
		if err := do(c, id); err != nil {
			return nil, err
		}
		return message{fmt.Sprintf("%s job %d", done, id), map[string]any{"id": id, done: true}}, nil
	}
}

func runPause(_ context.Context, _ *app, c *client.Conn, inv *invocation) (result, error) {
	tube := inv.args[0]
	secs, err := parseSeconds(inv.args[1])
	if err != nil {
		return nil, err
	}
	if err := c.PauseTube(tube, secs); err != nil {
		return nil, err
	}
	text := fmt.Sprintf("paused tube %q for %ds", tube, secs)
	if secs == 0 {
		text = fmt.Sprintf("resumed tube %q", tube)
	}
	return message{text, map[string]any{"tube": tube, "paused_seconds": secs}}, nil
}

func runClear(_ context.Context, _ *app, c *client.Conn, inv *invocation) (result, error) {
	tube := inv.args[0]
	n, err := c.ClearTube(tube)
	if err != nil {
		return nil, err
	}
	return message{
		text: fmt.Sprintf("cleared %s from tube %q (reserved jobs are left to their workers)", jobs(n), tube),
		obj:  map[string]any{"tube": tube, "cleared": n},
	}, nil
}

// listResult is a list of job ids.
type listResult struct {
	tube, state string
	offset      uint64
	ids         []uint64
}

func (r listResult) print(w io.Writer) {
	for _, id := range r.ids {
		fmt.Fprintln(w, id)
	}
}

func (r listResult) json() any {
	ids := r.ids
	if ids == nil {
		ids = []uint64{}
	}
	return map[string]any{"tube": r.tube, "state": r.state, "offset": r.offset, "ids": ids}
}

// listStates are the states list-jobs takes.
var listStates = map[string]bool{"ready": true, "delayed": true, "buried": true, "reserved": true}

func runList(_ context.Context, _ *app, c *client.Conn, inv *invocation) (result, error) {
	tube, state := inv.args[0], inv.args[1]
	ids, err := listIDs(c, tube, state, inv.offset, inv.count)
	if err != nil {
		return nil, err
	}
	return listResult{tube: tube, state: state, offset: inv.offset, ids: ids}, nil
}

// listIDs returns up to count (0: all) ids of the tube's jobs in state,
// skipping offset, paging through list-jobs (the server returns at most
// MaxListJobs ids per call).
func listIDs(c *client.Conn, tube, state string, offset, count uint64) ([]uint64, error) {
	var ids []uint64
	off := offset
	for count == 0 || uint64(len(ids)) < count {
		want := uint64(client.MaxListJobs)
		if count > 0 {
			want = min(want, count-uint64(len(ids)))
		}
		page, err := c.ListJobs(tube, state, off, want)
		if err != nil {
			return nil, err
		}
		ids = append(ids, page...)
		off += uint64(len(page))
		if uint64(len(page)) < want {
			break
		}
	}
	return ids, nil
}

// jobs says "1 job" or "n jobs".
func jobs(n uint64) string {
	if n == 1 {
		return "1 job"
	}
	return fmt.Sprintf("%d jobs", n)
}
