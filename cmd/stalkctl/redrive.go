package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/stalkd/stalkd/cmd/stalkctl/internal/client"
)

// Dead letters you can bring back, through the admin API:
//
//	stalkctl redrive TUBE [--to T] [--max N] [--chunk N]   POST /v1/tubes/TUBE/redrive, chunk by chunk
//	stalkctl move ID TUBE                                  POST /v1/jobs/ID/move
//
// redrive asks for a chunk of jobs at a time (--chunk, default 1000), so
// that a large tube shows its progress on stderr (a line redrawn in place
// on a terminal, a line per chunk otherwise) and an interrupted redrive
// stops between chunks with what moved reported. It stops when a chunk
// moves nothing, when --max jobs moved, or when as many jobs moved as the
// tube held when it started (jobs dead-lettered meanwhile wait for the
// next redrive).

// defaultChunk is how many jobs one redrive call moves.
const defaultChunk = 1000

// moveArgs are redrive's flags.
type moveArgs struct {
	to         string
	max, chunk uint64
}

var redriveCommand = &command{
	name: "redrive", synopsis: "TUBE [--to TUBE] [--max N] [--chunk N] [--admin URL]",
	help: "move a dead-letter tube's jobs back to the tube each came from (or all --to one), keeping " +
		"their ids, with progress (admin API)",
	minArgs: 1, maxArgs: 1, flags: redriveFlags, check: checkRedrive, admin: adminRedrive,
}

var moveCommand = &command{
	name: "move", synopsis: "ID TUBE [--admin URL]",
	help:    "move one ready, delayed or buried job to another tube, keeping its id and state (admin API)",
	minArgs: 2, maxArgs: 2, check: checkID, admin: adminMove,
}

func redriveFlags(fs *flag.FlagSet, inv *invocation) {
	fs.StringVar(&inv.moves.to, "to", "", "send every job to this tube instead of its origin")
	fs.Uint64Var(&inv.moves.max, "max", 0, "move at most this many jobs (0: all)")
	fs.Uint64Var(&inv.moves.chunk, "chunk", defaultChunk, "jobs per call (progress is shown between calls)")
}

func checkRedrive(inv *invocation) error {
	if inv.moves.chunk == 0 || inv.moves.chunk > 1<<31 || inv.moves.max > 1<<62 {
		return usageErrorf("redrive: --chunk must be from 1 to 2147483648, --max a count (0: all)")
	}
	return nil
}

// redriveAnswer is one call's answer.
type redriveAnswer struct {
	Moved    int            `json:"moved"`
	To       map[string]int `json:"to"`
	NoOrigin int            `json:"no_origin"`
	Reserved int            `json:"reserved"`
	Left     int            `json:"left"`
}

// redriveResult sums the calls of one redrive.
type redriveResult struct {
	tube, to    string
	moved       int
	byTube      map[string]int
	last        redriveAnswer // what was left, as the last call saw it
	took        time.Duration
	interrupted bool
}

func (r redriveResult) print(w io.Writer) {
	names := make([]string, 0, len(r.byTube))
	for n := range r.byTube {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%d to %s", r.byTube[n], strconv.Quote(n))
	}
	fmt.Fprintf(w, "moved %d %s from %q in %s", r.moved, plural(r.moved, "job"), r.tube, r.took.Round(time.Millisecond))
	if len(parts) > 0 {
		fmt.Fprintf(w, ": %s", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w)
	if r.interrupted {
		fmt.Fprintln(w, "interrupted: run the same command again to move the rest")
	}
	l := r.last
	if l.Left == 0 && l.Reserved == 0 {
		return
	}
	fmt.Fprintf(w, "left in %q: %d ready, delayed or buried, %d reserved by workers", r.tube, l.Left, l.Reserved)
	if l.NoOrigin > 0 && r.to == "" {
		fmt.Fprintf(w, "; %d remember no origin (put there by a client): move them with --to TUBE", l.NoOrigin)
	}
	fmt.Fprintln(w)
}

func (r redriveResult) json() any {
	return map[string]any{"tube": r.tube, "moved": r.moved, "to": r.byTube, "left": r.last.Left,
		"reserved": r.last.Reserved, "no_origin": r.last.NoOrigin, "seconds": r.took.Seconds(),
		"interrupted": r.interrupted}
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// adminRedrive runs redrive: chunk after chunk, with progress.
func adminRedrive(ctx context.Context, a *app, h *adminClient, inv *invocation) (result, error) {
	tube, m := inv.args[0], inv.moves
	path := "/v1/tubes/" + url.PathEscape(tube) + "/redrive"
	start := time.Now()
	res := redriveResult{tube: tube, to: m.to, byTube: map[string]int{}}
	p := &redriveProgress{w: a.stderr, tty: a.stderrTTY, tube: tube}
	goal := -1 // jobs to move: what the tube held at the first answer (or --max)
	for {
		n := int(m.chunk)
		if m.max > 0 {
			n = min(n, int(m.max)-res.moved)
		}
		var ans redriveAnswer
		err := h.do(ctx, http.MethodPost, path, map[string]any{"to": m.to, "max": n}, &ans)
		if err != nil {
			p.end()
			res.took = time.Since(start)
			if ctx.Err() != nil && res.moved > 0 {
				res.interrupted = true
				return res, nil
			}
			if ae, ok := err.(*adminError); ok && ae.status == http.StatusNotFound {
				err = &described{msg: fmt.Sprintf("tube %q not found", tube), err: err}
			}
			if res.moved > 0 {
				return res, err // printed, then the error
			}
			return nil, err
		}
		res.moved += ans.Moved
		for t, k := range ans.To {
			res.byTube[t] += k
		}
		res.last = ans
		// What can still move: the tube's jobs less those that remember no
		// origin (known once a call has looked at them all). The goal only
		// shrinks, so jobs dead-lettered meanwhile wait for the next redrive.
		if g := res.moved + max(ans.Left-ans.NoOrigin, 0); goal < 0 || g < goal {
			goal = g
		}
		if m.max > 0 {
			goal = min(goal, int(m.max))
		}
		p.show(res.moved, goal, time.Since(start))
		if ans.Moved == 0 || res.moved >= goal || ctx.Err() != nil {
			p.end()
			res.took = time.Since(start)
			res.interrupted = ctx.Err() != nil && res.moved < goal
			return res, nil
		}
	}
}

// redriveProgress draws redrive's progress line on stderr. Not safe for
// concurrent use.
type redriveProgress struct {
	w     io.Writer
	tty   bool
	tube  string
	drawn bool
}

func (p *redriveProgress) show(moved, goal int, elapsed time.Duration) {
	rate := ""
	if s := elapsed.Seconds(); s > 0 && moved > 0 {
		rate = fmt.Sprintf(", %.0f jobs/s", float64(moved)/s)
	}
	line := fmt.Sprintf("redrive %s: %d of %d moved%s", p.tube, moved, goal, rate)
	if p.tty {
		fmt.Fprintf(p.w, "\r\x1b[K%s", line)
		p.drawn = true
		return
	}
	fmt.Fprintln(p.w, line)
}

func (p *redriveProgress) end() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

// moveResult is move's output.
type moveResult struct {
	id    uint64
	tube  string
	moved bool
}

func (r moveResult) print(w io.Writer) {
	if r.moved {
		fmt.Fprintf(w, "moved job %d to %q\n", r.id, r.tube)
		return
	}
	fmt.Fprintf(w, "job %d is already in %q\n", r.id, r.tube)
}

func (r moveResult) json() any { return map[string]any{"id": r.id, "tube": r.tube, "moved": r.moved} }

// adminMove runs move.
func adminMove(ctx context.Context, _ *app, h *adminClient, inv *invocation) (result, error) {
	id, _ := parseID(inv.args[0]) // checked by checkID
	var ans struct {
		Moved bool `json:"moved"`
	}
	err := h.do(ctx, http.MethodPost, fmt.Sprintf("/v1/jobs/%d/move", id), map[string]string{"tube": inv.args[1]}, &ans)
	if ae, ok := err.(*adminError); ok && ae.status == http.StatusNotFound {
		return nil, &described{msg: fmt.Sprintf("job %d not found", id), err: err}
	}
	if err != nil {
		return nil, err
	}
	return moveResult{id: id, tube: inv.args[1], moved: ans.Moved}, nil
}

// deadLetterInfo is what GET /v1/jobs/{id} says of a dead-lettered job.
type deadLetterInfo struct {
	Origin     string  `json:"origin"`
	Reason     string  `json:"reason"`
	ReasonText string  `json:"reason_text"`
	At         string  `json:"at"`
	AgeSeconds float64 `json:"age_seconds"`
}

// peekDeadLetter asks the admin API (--admin, $STALKD_ADMIN or the default) what job id
// remembers of a move to a dead-letter tube; nil when it never moved or
// the API cannot say (a note on stderr says why, unless the address was only the default).
func peekDeadLetter(ctx context.Context, a *app, inv *invocation, id uint64) *deadLetterInfo {
	urls := adminURLs(inv.adminURL)
	if len(urls) == 0 {
		return nil
	}
	one := *inv
	one.adminURL = urls[0]
	h, err := newAdminClient(a, &one)
	var j struct {
		DeadLetter *deadLetterInfo `json:"dead_letter"`
	}
	if err == nil {
		err = h.do(ctx, http.MethodGet, fmt.Sprintf("/v1/jobs/%d?peek_bytes=0", id), nil, &j)
	}
	// The default admin address is only a guess: say nothing when it does
	// not answer, so peek against a server without --admin stays quiet.
	if err != nil && inv.adminGiven && !errors.Is(err, client.ErrNotFound) {
		fmt.Fprintf(a.stderr, "stalkctl: peek: the admin API did not say whether job %d is a dead letter: %v\n", id, err)
	}
	return j.DeadLetter
}
