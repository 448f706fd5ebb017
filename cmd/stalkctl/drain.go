package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stalkd/stalkd/cmd/stalkctl/internal/client"
)

// defaultInterval is how often drain polls and top refreshes.
const defaultInterval = time.Second

// drainResult is the summary of a finished drain.
type drainResult struct {
	tube    string
	took    time.Duration
	done    int64 // jobs that left the tube while we watched
	buried  int64 // buried jobs still there (drain does not wait for them)
	missing bool  // the tube did not exist (or vanished): nothing to wait for
}

func (r drainResult) print(w io.Writer) {
	if r.missing && r.done == 0 {
		fmt.Fprintf(w, "tube %q has no jobs (it does not exist)\n", r.tube)
		return
	}
	fmt.Fprintf(w, "tube %q drained in %s (%d jobs left it", r.tube, r.took.Round(time.Millisecond), r.done)
	if r.buried > 0 {
		fmt.Fprintf(w, "; %d buried jobs remain", r.buried)
	}
	fmt.Fprintln(w, ")")
}

func (r drainResult) json() any {
	return map[string]any{"tube": r.tube, "drained": true, "seconds": r.took.Seconds(),
		"done": r.done, "buried": r.buried, "exists": !r.missing}
}

// runDrain polls stats-tube until the tube has no ready, delayed or
// reserved job, showing progress on stderr: a bar redrawn in place on a
// terminal, a line per change otherwise.
func runDrain(ctx context.Context, a *app, c *client.Conn, inv *invocation) (result, error) {
	tube := inv.args[0]
	start := time.Now()
	var expired <-chan time.Time
	if inv.timeout > 0 {
		t := time.NewTimer(inv.timeout)
		defer t.Stop()
		expired = t.C
	}
	tick := time.NewTicker(inv.interval)
	defer tick.Stop()
	p := &progress{w: a.stderr, tty: a.stderrTTY, tube: tube, last: -1}
	var peak int64
	for {
		s, err := c.StatsTube(tube)
		missing := errors.Is(err, client.ErrNotFound) // an empty unused tube vanishes
		if err != nil && !missing {
			p.end()
			return nil, err
		}
		left := s.Int("current-jobs-ready") + s.Int("current-jobs-delayed") + s.Int("current-jobs-reserved")
		peak = max(peak, left)
		p.show(left, peak, time.Since(start))
		if left == 0 {
			p.end()
			return drainResult{tube: tube, took: time.Since(start), done: peak,
				buried: s.Int("current-jobs-buried"), missing: missing}, nil
		}
		select {
		case <-ctx.Done():
			p.end()
			return nil, fmt.Errorf("drain interrupted with %d jobs left in tube %q", left, tube)
		case <-expired:
			p.end()
			return nil, fmt.Errorf("tube %q not drained after %s: %d jobs left: %w",
				tube, inv.timeout, left, errDrainTimeout)
		case <-tick.C:
		}
	}
}

// progress draws drain's progress. Not safe for concurrent use.
type progress struct {
	w     io.Writer
	tty   bool
	tube  string
	last  int64 // jobs left at the last line printed (-1: none yet)
	drawn bool  // a bar is on the terminal's current line
}

// barWidth is the bar's width in cells.
const barWidth = 30

// show reports left of peak jobs remaining after elapsed.
func (p *progress) show(left, peak int64, elapsed time.Duration) {
	done := peak - left
	rate := ""
	if secs := elapsed.Seconds(); secs > 0 && done > 0 {
		rate = fmt.Sprintf("  %.1f jobs/s", float64(done)/secs)
	}
	if p.tty {
		frac := 1.0
		if peak > 0 {
			frac = float64(done) / float64(peak)
		}
		fill := int(frac * barWidth)
		fmt.Fprintf(p.w, "\r\x1b[Kdrain %s [%s%s] %3.0f%%  %d left%s  %s",
			p.tube, strings.Repeat("#", fill), strings.Repeat("-", barWidth-fill), frac*100, left,
			rate, elapsed.Round(time.Second))
		p.drawn = true
		return
	}
	if left != p.last {
		fmt.Fprintf(p.w, "drain %s: %d jobs left (%d done)%s\n", p.tube, left, done, rate)
		p.last = left
	}
}

// end finishes the bar's line.
func (p *progress) end() {
	if p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
