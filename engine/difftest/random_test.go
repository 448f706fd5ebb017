package difftest

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stalkd/stalkd/engine/enginetest"
)

var (
	randomFlag = flag.Int("difftest.random", 24, "how many random conversations TestDiffRandom plays")
	fromFlag   = flag.Int64("difftest.from", 1, "the first seed TestDiffRandom plays")
	seedFlag   = flag.Int64("difftest.seed", 0, "play only this seed (with -difftest.v, log every step)")
	stepsFlag  = flag.Int("difftest.steps", 60, "steps per random conversation")
)

// TestDiffRandom plays random conversations (randgen_test.go) against the
// reference and stalkd, each seed on a fresh pair of servers, step by step
// in lock step, and fails at the first step whose replies differ, with the
// seed and the conversation so far written as script steps.
func TestDiffRandom(t *testing.T) {
	enginetest.Reference(t) // skips the test where the reference is not installed
	seeds := make([]int64, 0, *randomFlag)
	for i := range int64(*randomFlag) {
		seeds = append(seeds, *fromFlag+i)
	}
	if *seedFlag != 0 {
		seeds = []int64{*seedFlag}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			playRandom(t, seed, *stepsFlag)
		})
	}
}

// playRandom plays one seed's conversation of at most n steps.
func playRandom(t *testing.T, seed int64, n int) {
	maxJob := uint32(0)
	if seed%3 == 0 {
		maxJob = 50 // a small -z: JOB_TOO_BIG and its swallowing are cheap to reach
	}
	g := newGen(seed, int(maxJobOrDefault(maxJob)))
	ref := &session{tg: startReference(t, maxJob), conns: make(map[string]*client)}
	other := &session{tg: startCandidate(t, maxJob), conns: make(map[string]*client)}
	defer ref.closeAll()
	defer other.closeAll()

	var log strings.Builder
	for i := range n + 1 {
		st := g.audit()
		if i < n {
			st = g.next()
		}
		var refOut, otherOut map[string][]reply
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); refOut = ref.random(st) }()
		go func() { defer wg.Done(); otherOut = other.random(st) }()
		wg.Wait()

		x := stepCtx{sent: st.sent(), version: other.tg.version}
		// Where stalkd refuses a timeout 1.12 takes (strictReserveTimeout),
		// the states part on purpose: the reference may reserve a job, and
		// it counts the command and the worker. Compare this step (when the
		// reference timed out: else the line was not read as sent), then
		// stop.
		_, strict, _ := strictReserveTimeout(x, refOut[st.conn])
		if strict && !*selfFlag && render(refOut[st.conn]) != "TIMED_OUT\r\n" {
			return
		}
		d := compareStep(x, st, refOut, otherOut)
		if d != nil {
			// A reply the barrier missed (a server still busy when it
			// looked) is a harness miss, not a difference: take what has
			// come since, and say so.
			time.Sleep(lateGrace)
			ref.late(refOut)
			other.late(otherOut)
			late := compareStep(x, st, refOut, otherOut)
			if late == nil {
				t.Logf("seed %d, step %d: replies came after the barrier on connection %s (%s)", seed, i, d.conn, d.got)
			}
			d = late
		}
		logStep(&log, st, refOut)
		if *verboseFlag {
			t.Logf("seed %d step %d [%s] %s\n  reference %q\n  %-9s %q", seed, i, st.conn, shorten(x.sent),
				render(refOut[st.conn]), other.tg.name, render(otherOut[st.conn]))
		}
		if d != nil {
			t.Fatalf("seed %d, step %d: connection %s after %s on %s: %v\n  %-9s %q\n  %-9s %q\n"+
				"the conversation (reference's replies), replay with -run TestDiffRandom -difftest.seed=%d:\n%s",
				seed, i, d.conn, shorten(st.sent()), st.conn, d.errs, "reference", d.want, other.tg.name, d.got, seed, log.String())
		}
		if strict && !*selfFlag {
			return
		}
		g.observe(st, refOut)
	}
}

// audit is the step that ends every conversation: a fresh connection asks
// for the server-wide state and that of every job the reference named, so
// that a difference no step happened to show (a counter, a job's state, a
// tube's) still fails the seed. Only named jobs: 1.12 also shows a job whose
// put is still reading its body (stats-job says "state: invalid", peek
// returns the bytes read so far and garbage), which stalkd does not copy.
func (g *gen) audit() rstep {
	var b strings.Builder
	b.WriteString("stats\r\nlist-tubes\r\nstats-tube default\r\npeek-ready\r\npeek-delayed\r\npeek-buried\r\n")
	ids := append(slices.Collect(maps.Keys(g.tinyIDs)), g.ids...)
	slices.Sort(ids)
	for _, id := range slices.Compact(ids) {
		fmt.Fprintf(&b, "stats-job %d\r\n", id)
	}
	return rstep{conn: "audit", parts: []string{b.String()}}
}

// lateGrace is how long a step whose replies differ waits for replies the
// barrier missed before the difference counts.
const lateGrace = 300 * time.Millisecond

// stepDiff is the first connection whose replies to a step differ.
type stepDiff struct {
	conn, want, got string
	errs            []error
}

// compareStep compares the step's replies connection by connection, after
// the differences table, and returns the first that differ, or nil.
func compareStep(x stepCtx, st rstep, refOut, otherOut map[string][]reply) *stepDiff {
	for _, conn := range connsOf(refOut, otherOut) {
		cx := x
		if conn != st.conn {
			cx.sent = ""
		}
		want, _, errs := normalize(cx, refOut[conn], !*selfFlag)
		got, _, errs2 := normalize(cx, otherOut[conn], false)
		if errs = append(errs, errs2...); len(errs) > 0 || want != got {
			return &stepDiff{conn: conn, want: want, got: got, errs: errs}
		}
	}
	return nil
}

// late appends to out what every open connection has received since.
func (s *session) late(out map[string][]reply) {
	for _, name := range slices.Sorted(maps.Keys(s.conns)) {
		if rs := s.conns[name].settled(s.tg.pid); len(rs) > 0 {
			out[name] = append(out[name], rs...)
			s.dropIfClosed(name, rs)
		}
	}
}

// dropIfClosed forgets the connection when rs ends its stream.
func (s *session) dropIfClosed(name string, rs []reply) {
	if len(rs) > 0 && rs[len(rs)-1].Note != "" {
		if c, ok := s.conns[name]; ok {
			_ = c.c.Close()
			delete(s.conns, name)
		}
	}
}

// random plays one random step, then collects what every other open
// connection received meanwhile (a waiting reserve served by another
// connection's put), by connection. A connection the server closed is
// dropped, so the next step on it dials anew.
func (s *session) random(st rstep) map[string][]reply {
	out := make(map[string][]reply)
	if st.hangup {
		if _, ok := s.conns[st.conn]; ok {
			out[st.conn] = s.step(step{conn: st.conn, hangup: true})
		}
	} else if st.shut {
		// The server answers what it read, then closes: read to the end.
		out[st.conn] = s.step(step{conn: st.conn, send: st.parts, split: true, shut: true, eof: true})
	} else {
		out[st.conn] = s.step(step{conn: st.conn, send: st.parts, split: true, quiet: true})
	}
	for name, c := range s.conns {
		if name != st.conn {
			out[name] = c.settled(s.tg.pid)
		}
	}
	for name, rs := range out {
		s.dropIfClosed(name, rs)
		if len(rs) == 0 {
			delete(out, name)
		}
	}
	return out
}

// connsOf returns the connections either side has replies on, sorted.
func connsOf(a, b map[string][]reply) []string {
	var names []string
	for _, m := range []map[string][]reply{a, b} {
		for name := range m {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// logStep writes st and the reference's replies as script steps, so a
// failing conversation can be pasted into a scripts_*_test.go table.
func logStep(b *strings.Builder, st rstep, out map[string][]reply) {
	switch {
	case st.hangup:
		fmt.Fprintf(b, "\thangup(%q),\n", st.conn)
	case st.shut:
		fmt.Fprintf(b, "\thalfClose(%q, %s, %s),\n", st.conn, goString(st.sent()), goString(render(out[st.conn])))
	case len(st.parts) == 1:
		fmt.Fprintf(b, "\tsay(%q, %s, %s),\n", st.conn, goString(st.parts[0]), goString(render(out[st.conn])))
	default:
		q := make([]string, len(st.parts))
		for i, p := range st.parts {
			q[i] = goString(p)
		}
		fmt.Fprintf(b, "\tsayParts(%q, %s, %s),\n", st.conn, goString(render(out[st.conn])), strings.Join(q, ", "))
	}
	for _, conn := range connsOf(out, nil) {
		if conn != st.conn {
			fmt.Fprintf(b, "\texpect(%q, %s),\n", conn, goString(render(out[conn])))
		}
	}
}

// goString quotes s as a Go expression, runs of 16 or more equal bytes
// written as strings.Repeat (big bodies, padding).
func goString(s string) string {
	var parts []string
	for len(s) > 0 {
		i := 0
		for i < len(s) {
			j := i
			for j < len(s) && s[j] == s[i] {
				j++
			}
			if j-i >= 16 {
				break
			}
			i = j
		}
		if i > 0 {
			parts = append(parts, strconv.Quote(s[:i]))
			s = s[i:]
			continue
		}
		j := 0
		for j < len(s) && s[j] == s[0] {
			j++
		}
		parts = append(parts, fmt.Sprintf("strings.Repeat(%q, %d)", s[:1], j))
		s = s[j:]
	}
	if len(parts) == 0 {
		return `""`
	}
	return strings.Join(parts, "+")
}
