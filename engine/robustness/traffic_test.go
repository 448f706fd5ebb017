package robustness

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stalkd/stalkd/engine/robustness/model"
)

// Traffic: each group of a history has its own tubes and a few clients
// that pick commands at random (seeded), one at a time, through a node
// picked at random, for as long as the history runs.

const (
	// ttr is every job's time-to-run: far longer than a history, so that
	// no TTR runs out inside one (a second reserve is then a violation).
	ttr = 1800
	// longDelay is a delayed job's delay: it never comes due inside a
	// history (only kick moves it). Equal for every delayed job, so that
	// kick order is delay order.
	longDelay = 3600
	// replyWithin bounds the wait for a reply: above the 10 s a cluster
	// member holds a command while no leader is known.
	replyWithin = 12 * time.Second
)

// worker is one client of a group: a connection at a time (a new session
// after each error), its used tube, its watch list and the jobs it holds.
type worker struct {
	h      *history
	sys    *system
	group  int
	client int
	rng    *rand.Rand

	c       *conn
	node    string
	session int
	use     int
	watch   uint32
	held    []uint64
	mayHold bool          // an outcome not known may have left this session a job
	backoff time.Duration // after an outcome not known: doubles while they go on
}

// runWorkers runs clients per group until stop closes, then closes their
// connections.
func runWorkers(h *history, sys *system, clients int, seed uint64, pace time.Duration, stop <-chan struct{}) {
	var wg sync.WaitGroup
	for g := range h.groups {
		for c := range clients {
			w := &worker{h: h, sys: sys, group: g, client: g*clients + c,
				rng: rand.New(rand.NewPCG(seed, uint64(g*clients+c)))}
			wg.Add(1)
			go func() {
				defer wg.Done()
				w.run(pace, stop)
			}()
		}
	}
	wg.Wait()
}

func (w *worker) run(pace time.Duration, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			w.hangUp()
			return
		default:
		}
		if w.c == nil && !w.connect() {
			sleep(stop, 50*time.Millisecond)
			continue
		}
		w.step()
		if pace > 0 {
			sleep(stop, time.Duration(w.rng.Int64N(int64(pace))))
		}
	}
}

func sleep(stop <-chan struct{}, d time.Duration) {
	select {
	case <-stop:
	case <-time.After(d):
	}
}

// connect opens a session through a random running node: its used tube
// and watch list are set up before anything is recorded.
func (w *worker) connect() bool {
	var up []*node
	for _, n := range w.sys.nodes {
		if n.running() && n.clientAddr() != "" {
			up = append(up, n)
		}
	}
	if len(up) == 0 {
		return false
	}
	n := up[w.rng.IntN(len(up))]
	c, err := dial(n.clientAddr())
	if err != nil {
		return false
	}
	w.use = w.rng.IntN(w.h.tubes)
	w.watch = uint32(1+w.rng.IntN(1<<w.h.tubes-1)) & (1<<w.h.tubes - 1)
	// Each line must get its own word: a session whose setup was refused
	// (INTERNAL_ERROR while no leader is known) is not the one the model
	// thinks it is, and is dropped before anything is recorded.
	setup := [][2]string{{"use " + w.h.tube(w.group, w.use), "USING " + w.h.tube(w.group, w.use)}}
	for t := range w.h.tubes {
		if w.watch&(1<<t) != 0 {
			setup = append(setup, [2]string{"watch " + w.h.tube(w.group, t), "WATCHING "})
		}
	}
	setup = append(setup, [2]string{"ignore default", "WATCHING "})
	for _, s := range setup {
		if r, _, err := c.do(s[0], nil, replyWithin); err != nil || !strings.HasPrefix(r, s[1]) {
			c.close()
			return false
		}
	}
	w.c, w.node, w.session, w.held, w.mayHold = c, n.id, w.h.newSession(), nil, false
	return true
}

// hangUp closes the connection; a session that may hold a job records its
// close (the server gives the jobs back at some point after it).
func (w *worker) hangUp() {
	if w.c == nil {
		return
	}
	w.c.close()
	w.c = nil
	if len(w.held) > 0 || w.mayHold {
		at := w.h.now()
		w.h.add(record{Op: model.Op{Client: w.client, Call: at, Return: model.Never,
			Input: model.Input{Kind: model.Close, Group: w.group, Session: w.session}, Output: model.Output{Unknown: true}},
			Node: w.node, Cmd: "close"})
	}
}

// checkSession asks the server which tube the session uses and which it
// watches: a connection carried to a new leader must keep both (the model
// cannot see a session's tubes; a mismatch is reported as it is).
func (w *worker) checkSession() {
	want := "USING " + w.h.tube(w.group, w.use)
	r, _, err := w.c.do("list-tube-used", nil, replyWithin)
	if err == nil && r != want && r != "INTERNAL_ERROR" {
		w.h.noteBad(fmt.Sprintf("s%d through %s: list-tube-used answered %q, want %q", w.session, w.node, r, want))
	}
	r, data, err := w.c.do("list-tubes-watched", nil, replyWithin)
	if err != nil || !strings.HasPrefix(r, "OK") {
		return
	}
	var got []string
	for _, line := range strings.Split(string(data), "\n") {
		if name, ok := strings.CutPrefix(line, "- "); ok {
			got = append(got, strings.Trim(name, `"`))
		}
	}
	var exp []string
	for t := range w.h.tubes {
		if w.watch&(1<<t) != 0 {
			exp = append(exp, w.h.tube(w.group, t))
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, exp) {
		w.h.noteBad(fmt.Sprintf("s%d through %s: list-tubes-watched answered %q, want %q", w.session, w.node, got, exp))
	}
}

// step sends one random command and records it.
func (w *worker) step() {
	if w.rng.IntN(25) == 0 {
		w.checkSession()
		return
	}
	in, line, body := w.pick()
	in.Group, in.Session = w.group, w.session
	call := w.h.now()
	reply, data, err := w.c.do(line, body, replyWithin)
	ret := w.h.now()
	out := w.h.outcome(w.group, in, reply, data, err)
	// A single node refuses a reserve with INTERNAL_ERROR only once its
	// journal has failed, before the reserve runs: no effect, like a read.
	refused := !w.sys.cluster && reply == "INTERNAL_ERROR" && in.Kind == model.Reserve
	r := record{Op: model.Op{Client: w.client, Input: in, Output: out, Call: call, Return: ret},
		Node: w.node, Cmd: line, Reply: reply, Read: isRead(in.Kind) || refused}
	if err != nil {
		r.Reply = "error: " + err.Error()
	}
	if out.Unknown && (err != nil || w.sys.cluster) {
		// No reply: the command may still take effect, at any time. In a
		// cluster even a reply (INTERNAL_ERROR when the leader changed)
		// does not bound it: a new leader may commit the old one's entry.
		// A single node's INTERNAL_ERROR or OUT_OF_MEMORY comes after
		// whatever the command did.
		r.Return = model.Never
	}
	w.h.add(r)
	w.after(in, out)
	if !out.Unknown {
		w.backoff = 0
		return
	}
	w.mayHold = w.mayHold || (in.Kind == model.Reserve && !refused) || in.Kind == model.Touch
	w.hangUp() // a fresh session: what this one holds is no longer known
	// Every outcome not known multiplies what the checker must consider:
	// while the server keeps failing (a dead journal until its restart),
	// ask it less and less often.
	w.backoff = min(max(2*w.backoff, 150*time.Millisecond), 2*time.Second)
	time.Sleep(w.backoff/2 + time.Duration(w.rng.Int64N(int64(w.backoff/2))))
}

func isRead(k model.Kind) bool {
	switch k {
	case model.Peek, model.PeekReady, model.PeekDelayed, model.PeekBuried, model.StatsJob:
		return true
	}
	return false
}

// after updates what the worker knows from a reply.
func (w *worker) after(in model.Input, out model.Output) {
	if out.Unknown {
		return
	}
	switch out.Word {
	case model.Inserted, model.Found:
		w.h.learn(w.group, out.ID)
	case model.Reserved:
		w.h.learn(w.group, out.ID)
		w.held = append(w.held, out.ID)
	case model.Deleted, model.Released, model.Buried:
		w.drop(in.ID)
	case model.NotFound:
		if in.Kind == model.Delete || in.Kind == model.Release || in.Kind == model.Bury || in.Kind == model.Touch {
			w.drop(in.ID)
		}
	}
}

func (w *worker) drop(id uint64) {
	for i, h := range w.held {
		if h == id {
			w.held = append(w.held[:i], w.held[i+1:]...)
			return
		}
	}
}

// pick chooses the next command: its model input and its line (and body).
func (w *worker) pick() (model.Input, string, []byte) {
	r := w.rng.IntN(100)
	pri := []uint32{0, 1, 2, 1024}[w.rng.IntN(4)]
	if len(w.held) > 0 && r < 35 {
		id := w.held[w.rng.IntN(len(w.held))]
		switch {
		case r < 18:
			return model.Input{Kind: model.Delete, ID: id}, fmt.Sprintf("delete %d", id), nil
		case r < 25:
			delayed := w.rng.IntN(5) == 0
			return model.Input{Kind: model.Release, ID: id, Pri: pri, Delayed: delayed},
				fmt.Sprintf("release %d %d %d", id, pri, delayIf(delayed)), nil
		case r < 31:
			return model.Input{Kind: model.Bury, ID: id, Pri: pri}, fmt.Sprintf("bury %d %d", id, pri), nil
		default:
			return model.Input{Kind: model.Touch, ID: id}, fmt.Sprintf("touch %d", id), nil
		}
	}
	r = w.rng.IntN(100)
	switch {
	case r < 34:
		job := w.h.newJob()
		delayed := w.rng.IntN(8) == 0
		return model.Input{Kind: model.Put, Tube: w.use, Job: job, Pri: pri, Delayed: delayed},
			fmt.Sprintf("put %d %d %d %d", pri, delayIf(delayed), ttr, len(w.h.body(job))), w.h.body(job)
	case r < 56:
		timeout := []int{0, 0, 0, 1, -1}[w.rng.IntN(5)]
		line := fmt.Sprintf("reserve-with-timeout %d", timeout)
		if timeout < 0 {
			if w.rng.IntN(3) > 0 {
				timeout, line = 0, "reserve-with-timeout 0"
			} else {
				line = "reserve"
			}
		}
		return model.Input{Kind: model.Reserve, Watch: w.watch, Timeout: timeout}, line, nil
	case r < 62:
		n := 1 + w.rng.IntN(3)
		return model.Input{Kind: model.Kick, Tube: w.use, Count: n}, fmt.Sprintf("kick %d", n), nil
	case r < 74:
		k := []model.Kind{model.PeekReady, model.PeekDelayed, model.PeekBuried}[w.rng.IntN(3)]
		return model.Input{Kind: k, Tube: w.use}, k.String(), nil
	}
	id := w.h.someID(w.group, w.rng.IntN)
	if id == 0 {
		return model.Input{Kind: model.PeekReady, Tube: w.use}, "peek-ready", nil
	}
	switch {
	case r < 84:
		return model.Input{Kind: model.Peek, ID: id}, fmt.Sprintf("peek %d", id), nil
	case r < 92:
		return model.Input{Kind: model.StatsJob, ID: id}, fmt.Sprintf("stats-job %d", id), nil
	case r < 97:
		return model.Input{Kind: model.KickJob, ID: id}, fmt.Sprintf("kick-job %d", id), nil
	}
	return model.Input{Kind: model.Delete, ID: id}, fmt.Sprintf("delete %d", id), nil
}

func delayIf(delayed bool) int {
	if delayed {
		return longDelay
	}
	return 0
}

// sweep is the history's last word, once the faults are healed and the
// workers gone: through one node, a fresh session per group peeks at every
// id the group learnt (an acknowledged job missing, or one deleted still
// there, is then a violation), then reserves until TIMED_OUT (every ready
// job, in order).
func sweep(h *history, n *node) error {
	for g := range h.groups {
		c, err := dial(n.clientAddr())
		if err != nil {
			return err
		}
		session := h.newSession()
		all := uint32(1<<h.tubes - 1)
		for t := range h.tubes {
			if _, _, err := c.do("watch "+h.tube(g, t), nil, replyWithin); err != nil {
				return err
			}
		}
		if _, _, err := c.do("ignore default", nil, replyWithin); err != nil {
			return err
		}
		do := func(in model.Input, line string) (model.Output, error) {
			in.Group, in.Session = g, session
			call := h.now()
			reply, data, err := c.do(line, nil, replyWithin)
			out := h.outcome(g, in, reply, data, err)
			r := record{Op: model.Op{Client: -1 - g, Input: in, Output: out, Call: call, Return: h.now()},
				Node: n.id, Cmd: line, Reply: reply, Read: isRead(in.Kind)}
			if out.Unknown && (err != nil || n.cluster) {
				r.Return = model.Never
			}
			h.add(r)
			if err == nil && out.Unknown {
				err = fmt.Errorf("sweep: %s answered %q", line, reply)
			}
			return out, err
		}
		for _, id := range h.groupIDs(g) {
			if _, err := do(model.Input{Kind: model.Peek, ID: id}, fmt.Sprintf("peek %d", id)); err != nil {
				c.close()
				return err
			}
		}
		for range 1000 {
			out, err := do(model.Input{Kind: model.Reserve, Watch: all, Timeout: 0}, "reserve-with-timeout 0")
			if err != nil {
				c.close()
				return err
			}
			if out.Word != model.Reserved {
				break
			}
		}
		c.close()
	}
	return nil
}
