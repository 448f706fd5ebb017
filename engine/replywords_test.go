package engine

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
)

// The house rule, pinned: a client's own command never gets a reply word
// that beanstalkd 1.12 does not send for that command, whatever policy is
// in force (stalkd's own commands get stalkd's words). The words allowed
// per command are one declared table, codec.Spec.Replies (codec/replies.go)
// plus codec.GenericReplies; this test reads it.

// policyKinds are the policies the rule is checked under: every kind of
// policy, max_ready with each overflow mode (the dead-letter tube of the
// last capped too, so that its own refusal shows).
var policyKinds = []struct {
	name string
	set  map[string]jobs.Policy
	// saw checks that the policy acted during the run (so the run checked
	// its replies, not a quiet tube's): its counters, and words seen.
	saw func(t *testing.T, c jobs.PolicyCounts, words map[string]bool)
}{
	{"none", nil, func(t *testing.T, _ jobs.PolicyCounts, _ map[string]bool) {}},
	{"max_reserves", map[string]jobs.Policy{"t": {MaxReserves: 1}},
		func(t *testing.T, c jobs.PolicyCounts, _ map[string]bool) { assert.NotZero(t, c.DeadLettered) }},
	{"max_reserves+dead_letter", map[string]jobs.Policy{"t": {MaxReserves: 1, DeadLetter: "t-dead"}},
		func(t *testing.T, c jobs.PolicyCounts, _ map[string]bool) { assert.NotZero(t, c.DeadLettered) }},
	{"max_ready reject", map[string]jobs.Policy{"t": {MaxReady: 1}},
		func(t *testing.T, c jobs.PolicyCounts, w map[string]bool) {
			assert.NotZero(t, c.RefusedFull)
			assert.True(t, w["put OUT_OF_MEMORY"])
		}},
	{"max_ready bury", map[string]jobs.Policy{"t": {MaxReady: 1, Overflow: jobs.OverflowBury}},
		func(t *testing.T, c jobs.PolicyCounts, w map[string]bool) {
			assert.NotZero(t, c.Overflowed)
			assert.True(t, w["put BURIED"])
		}},
	{"max_ready dead_letter", map[string]jobs.Policy{
		"t":      {MaxReady: 1, Overflow: jobs.OverflowDeadLetter, DeadLetter: "t-dead"},
		"t-dead": {MaxReady: 1}},
		func(t *testing.T, c jobs.PolicyCounts, w map[string]bool) {
			assert.NotZero(t, c.Overflowed, "into the dead-letter tube")
			assert.NotZero(t, c.RefusedFull, "the dead-letter tube full too")
			assert.True(t, w["put OUT_OF_MEMORY"])
		}},
	{"reserve_rate", map[string]jobs.Policy{"t": {ReserveRate: 0.5}},
		func(t *testing.T, c jobs.PolicyCounts, _ map[string]bool) { assert.NotZero(t, c.RateLimitedWaits) }},
	{"schedule", map[string]jobs.Policy{"t": {Schedule: []jobs.Schedule{{Cron: "@every 1s", Body: "tick", TTR: 1}}}},
		func(t *testing.T, c jobs.PolicyCounts, _ map[string]bool) { assert.NotZero(t, c.ScheduledPuts) }},
}

// TestReplyWordsUnderEveryPolicy sends every command, under every kind of
// policy, over TCP, at the points where the policy acts (a full tube, a
// job out of reserves released or timed out, a tube out of tokens, a
// schedule firing), and checks each reply's first word.
func TestReplyWordsUnderEveryPolicy(t *testing.T) {
	for _, kind := range policyKinds {
		t.Run(kind.name, func(t *testing.T) {
			clk := jobs.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
			q := jobs.New(jobs.Config{Clock: clk})
			for tube, p := range kind.set {
				require.NoError(t, q.SetPolicy(tube, p))
			}
			s := startBackend(t, Backend{Queue: q})
			r := &wordRun{t: t, addr: addrOf(t, s), words: map[string]bool{}, sent: map[codec.Op]bool{},
				advance: func(d time.Duration) { clk.Advance(d); q.Tick() }}
			r.script()
			var counts jobs.PolicyCounts
			for _, ps := range q.PolicyStats() {
				if ps.Tube == "t" {
					counts = ps.PolicyCounts
				}
			}
			kind.saw(t, counts, r.words)
			for _, spec := range codec.Commands() {
				assert.True(t, r.sent[spec.Op], "%v was sent", spec.Op)
			}
		})
	}
}

// TestReplyWordsTableAgainstReference runs the same script against
// beanstalkd 1.12 (skipped when it is not installed): every word it sends
// must be in the table, so the table leaves out nothing 1.12 says.
func TestReplyWordsTableAgainstReference(t *testing.T) {
	ref := enginetest.Reference(t)
	r := &wordRun{t: t, addr: ref.Addr(), words: map[string]bool{}, sent: map[codec.Op]bool{},
		advance: func(time.Duration) {}}
	r.script()
	assert.True(t, r.words["reserve RESERVED"] && r.words["put INSERTED"], "the script reached the reference")
}

// wordRun is one run of the script against a server.
type wordRun struct {
	t       *testing.T
	addr    string
	advance func(time.Duration) // moves the server's clock (a no-op for the reference)
	words   map[string]bool     // "cmd WORD" seen
	sent    map[codec.Op]bool
	last    uint64 // the last job id a reply named
}

// script drives a producer p and a worker w through every command, with
// the policy tube "t" (and "t-dead") at the edges where a policy acts.
func (r *wordRun) script() {
	p, w, o := enginetest.Dial(r.t, r.addr), enginetest.Dial(r.t, r.addr), enginetest.Dial(r.t, r.addr)
	r.do(p, "use t")
	r.do(w, "watch t")
	r.do(w, "watch t-dead")
	for i := range 3 { // over max_ready: overflow; with a delay too
		r.do(p, "put 0 "+strconv.Itoa(i%2*5)+" 2 1\r\nx")
	}
	for _, line := range []string{"peek-ready", "peek-delayed", "peek-buried", "peek 1", "stats-job 1",
		"stats-tube t", "stats-tube t-dead", "list-tube-used", "list-tubes", "stats", "list-jobs t ready 0 10"} {
		r.do(p, line)
	}
	// max_reserves after a release; reserve_rate spends its one token.
	id := r.reserve(w)
	r.do(w, "touch "+id)
	r.do(w, "release "+id+" 0 0")
	id = r.reserve(w)
	r.do(o, "delete "+id) // reserved by another: NOT_FOUND
	r.do(w, "bury "+id+" 5")
	r.do(p, "kick 10")
	r.do(p, "kick-job "+id)
	r.do(w, "reserve-job "+id)
	// max_reserves after a timeout; a schedule fires; tokens come back.
	r.advance(3 * time.Second)
	r.reserve(w)
	r.advance(3 * time.Second)
	r.do(w, "reserve-with-timeout 0")
	for i := range 2 {
		r.do(p, "put 0 0 2 1\r\n"+strconv.Itoa(i))
	}
	r.do(w, "list-tubes-watched")
	r.do(w, "ignore t-dead")
	r.do(w, "ignore t")
	r.do(w, "ignore default") // the only watched tube left: NOT_IGNORED
	r.do(p, "pause-tube t 0")
	r.do(p, "pause-tube nope 0")
	r.do(p, "stats-job 99999")
	r.do(p, "use default")
	r.do(p, "put 0 0 60 1\r\nd")
	r.do(w, "reserve") // a job is ready in default: a blocking reserve returns
	r.do(w, "delete "+strconv.FormatUint(r.last, 10))
	r.do(w, "delete 99999")
	r.do(p, "clear-tube t-dead")
	r.do(p, "clear-tube nope")
	r.do(p, "auth a-token-of-16-bytes")
	r.do(p, "stats-cluster")
	r.do(p, "no-such-command")
	r.do(p, "quit")
	p.ExpectEOF()
}

// reserve sends reserve-with-timeout 0 and returns the id it got or, when
// it got none, the last id a reply named (the commands that follow then
// act on a job they may not find, as clients do).
func (r *wordRun) reserve(c *enginetest.Conn) string {
	r.do(c, "reserve-with-timeout 0")
	return strconv.FormatUint(max(r.last, 1), 10)
}

// do sends one command (a put with its body) and checks its reply's first
// word against what 1.12 may send for that command; it returns the reply
// line. The command's op is found by codec's own decoder.
func (r *wordRun) do(c *enginetest.Conn, line string) string {
	r.t.Helper()
	head, _, _ := strings.Cut(line, "\r\n")
	d := codec.NewDecoder(1 << 16)
	cmd, _, ok := d.Decode([]byte(head + "\r\n"))
	op := codec.OpNone
	if ok {
		op = cmd.Op
	}
	r.sent[op] = true
	c.Send(line + "\r\n")
	if op == codec.OpQuit {
		return ""
	}
	reply := c.Reply()
	word, rest, _ := strings.Cut(reply.Head, " ")
	if id, _, _ := strings.Cut(rest, " "); word == "RESERVED" || word == "INSERTED" || word == "BURIED" && rest != "" {
		r.last, _ = strconv.ParseUint(id, 10, 64)
	}
	r.words[strings.Fields(head)[0]+" "+word] = true
	assert.True(r.t, codec.ReplyAllowed(op, word), "%q got %q: 1.12 never sends %s to %v", head, reply.Head, word, op)
	return reply.Head
}
