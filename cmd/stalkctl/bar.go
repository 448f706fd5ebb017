package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// bar shows the progress of a long operation over a known number of items
// on stderr: a bar redrawn in place on a terminal, a line every few
// seconds otherwise. Not safe for concurrent use.
type bar struct {
	w      io.Writer
	tty    bool
	what   string // "export", "migrate"
	total  int
	start  time.Time
	shown  time.Time // the last line printed (not a terminal)
	drawn  bool
	repeat time.Duration
}

func newBar(w io.Writer, tty bool, what string, total int) *bar {
	return &bar{w: w, tty: tty, what: what, total: total, start: time.Now(), repeat: 5 * time.Second}
}

// show reports done items of the total.
func (b *bar) show(done int) {
	now := time.Now()
	elapsed := now.Sub(b.start)
	rate := ""
	if secs := elapsed.Seconds(); secs > 0 && done > 0 {
		rate = fmt.Sprintf("  %.0f jobs/s", float64(done)/secs)
	}
	frac := 1.0
	if b.total > 0 {
		frac = float64(done) / float64(b.total)
	}
	if b.tty {
		fill := int(frac * barWidth)
		fmt.Fprintf(b.w, "\r\x1b[K%s [%s%s] %3.0f%%  %d/%d%s  %s", b.what, strings.Repeat("#", fill),
			strings.Repeat("-", barWidth-fill), frac*100, done, b.total, rate, elapsed.Round(time.Second))
		b.drawn = true
		return
	}
	if done == b.total || now.Sub(b.shown) >= b.repeat {
		fmt.Fprintf(b.w, "%s: %d/%d jobs (%.0f%%)%s\n", b.what, done, b.total, frac*100, rate)
		b.shown = now
	}
}

// end finishes the bar's line.
func (b *bar) end() {
	if b.drawn {
		fmt.Fprintln(b.w)
		b.drawn = false
	}
}
