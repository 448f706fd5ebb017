package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/stalkd/stalkd/cmd/stalkctl/internal/client"
)

// ANSI sequences top uses on a terminal.
const (
	ansiAltScreen = "\x1b[?1049h\x1b[?25l" // alternate screen, hide the cursor
	ansiMainScree = "\x1b[?25h\x1b[?1049l" // show the cursor, back to the main screen
	ansiHome      = "\x1b[H"
	ansiClearEOL  = "\x1b[K"
	ansiClearEOS  = "\x1b[J"
)

// takeSample reads the server's stats and every tube's.
func takeSample(c *client.Conn) (*sample, error) {
	s, err := c.Stats()
	if err != nil {
		return nil, err
	}
	tubes, err := tubeStats(c)
	if err != nil {
		return nil, err
	}
	return &sample{at: time.Now(), server: s, tubes: tubes}, nil
}

// stalkdVersion asks stats-cluster, stalkd's own command, for stalkd's
// version; "" from a server without it (beanstalkd, an older stalkd).
func stalkdVersion(c *client.Conn) string {
	r, err := c.Do("stats-cluster", nil)
	if err != nil || r.Word != "OK" {
		return ""
	}
	st, _ := client.ParseStats(r.Body)
	v, _ := st.Get("stalkd-version")
	return v
}

// runTop shows the live view. With --once it prints one frame built from
// two samples an interval apart (so rates are real) and returns; otherwise
// it refreshes every interval until q, Ctrl-C, SIGTERM or SIGHUP (ctx).
// On a terminal the frame is redrawn in place on the alternate screen, and
// every way out restores the terminal (main screen, cursor, line mode):
// a signal cancels ctx, which also interrupts the connection so that a
// sample in flight does not hold the exit up. To a pipe each frame is printed in
// turn (JSON: one per line).
func runTop(ctx context.Context, a *app, c *client.Conn, inv *invocation) (result, error) {
	interactive := a.stdoutTTY && !inv.once && !inv.json
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if interactive {
		defer a.enterScreen()()
		if a.keys != nil {
			go watchKeys(a.keys, cancel)
		}
	}
	defer context.AfterFunc(ctx, c.Interrupt)()
	stalkd := stalkdVersion(c)
	prev, err := takeSample(c)
	if err != nil {
		return nil, quitErr(ctx, err)
	}
	if interactive {
		f := buildFrame(nil, prev)
		f.StalkdVersion = stalkd
		a.draw(f, inv.addr)
	}
	tick := time.NewTicker(inv.interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, nil
		case <-tick.C:
		}
		cur, err := takeSample(c)
		if err != nil {
			return nil, quitErr(ctx, err)
		}
		f := buildFrame(prev, cur)
		f.StalkdVersion = stalkd
		prev = cur
		switch {
		case interactive:
			a.draw(f, inv.addr)
		case inv.json:
			if inv.once {
				return nil, writeJSON(a.stdout, f)
			}
			b, _ := json.Marshal(f)
			a.stdout.Write(append(b, '\n'))
		default:
			io.WriteString(a.stdout, strings.Join(f.lines(inv.addr, 0, 0), "\n")+"\n")
			if inv.once {
				return nil, nil
			}
			io.WriteString(a.stdout, "\n")
		}
	}
}

// quitErr is a sample's error, unless top was told to quit (the
// connection was interrupted for that).
func quitErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// enterScreen switches the terminal to top's mode (keys unbuffered, the
// alternate screen, no cursor) and returns the function that switches it
// back, which the caller defers: it runs on every return, an error, a
// panic and a signal (which cancels top's context) alike.
func (a *app) enterScreen() (restore func()) {
	restoreMode := func() {}
	if a.term != nil {
		if r, err := a.term.raw(); err == nil {
			restoreMode = r
		}
	}
	io.WriteString(a.stdout, ansiAltScreen)
	return func() {
		io.WriteString(a.stdout, ansiMainScree)
		restoreMode()
	}
}

// draw redraws the terminal: home, each line cleared to its end, the rest
// of the screen cleared (no flicker from a full clear).
func (a *app) draw(f frame, addr string) {
	width, height := 80, 24
	if a.term != nil {
		if w, h, ok := a.term.size(); ok {
			width, height = w, h
		}
	}
	var b strings.Builder
	b.WriteString(ansiHome)
	for _, l := range f.lines(addr, width, height-1) {
		b.WriteString(l)
		b.WriteString(ansiClearEOL + "\r\n")
	}
	b.WriteString("(q to quit)" + ansiClearEOL + ansiClearEOS)
	io.WriteString(a.stdout, b.String())
}

// watchKeys cancels when q (or Q, or Ctrl-C in raw mode) is typed, or the
// keys end.
func watchKeys(r io.Reader, cancel func()) {
	defer cancel()
	buf := make([]byte, 64)
	for {
		n, err := r.Read(buf)
		for _, k := range buf[:n] {
			if k == 'q' || k == 'Q' || k == 3 {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
