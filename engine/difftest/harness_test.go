package difftest

import (
	"bufio"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// Tests of the harness itself, so that a lenient reader or an over-eager
// mask cannot make TestDiff pass vacuously. They need no server.

func TestReadReplyShapes(t *testing.T) {
	cases := []struct {
		in, want string
	}{
		{"INSERTED 1\r\n", "INSERTED 1\r\n"},
		{"OK 3\r\nabc\r\n", "OK 3\r\nabc\r\n"},
		{"FOUND 1 0\r\n\r\n", "FOUND 1 0\r\n\r\n"},
		{"RESERVED 7 4\r\na\r\nb\r\n", "RESERVED 7 4\r\na\r\nb\r\n"},
		{"FOUND 1 2 3\r\n", "FOUND 1 2 3\r\n"}, // not a body shape: one line
		{"OK 3\r\nabcd\r\n", `<body not followed by CRLF after "OK 3\r\nabcd\r">`},
		{"USING x\n", `<line ends in a bare LF after "USING x\n">`},
		{"OK 5\r\nab", `<EOF after "OK 5\r\nab">`},
		{"DELETED", `<EOF after "DELETED">`},
		{"", "<EOF>"},
	}
	for _, c := range cases {
		got := enginetest.ReadReply(bufio.NewReader(strings.NewReader(c.in)))
		assert.Equal(t, c.want, got.String(), "input %q", c.in)
	}
}

func TestParseRepliesCountsReplies(t *testing.T) {
	rs, eof := enginetest.ParseReplies("USING a\r\nOK 3\r\n---\r\nRESERVED 1 0\r\n\r\n<EOF>")
	assert.True(t, eof)
	assert.Len(t, rs, 3)
	rs, eof = enginetest.ParseReplies("")
	assert.False(t, eof)
	assert.Empty(t, rs)
	assert.Panics(t, func() { enginetest.ParseReplies("OK 9\r\nshort\r\n") })
}

// A 1.12 stats document, shortened to the keys the table touches.
const refStats = "---\ncurrent-jobs-urgent: 0\ncmd-put: 2\npid: 4711\nversion: \"1.12\"\nrusage-utime: 0.001000\n" +
	"rusage-stime: 0.000000\nuptime: 3\nid: 0123456789abcdef\nhostname: vm\nos: #1 SMP\nplatform: x86_64\n"

func TestNormalizeRewritesAndMasks(t *testing.T) {
	x := stepCtx{sent: "stats\r\n", version: "9.9"}
	ref := docReply(refStats)
	want, used, errs := normalize(x, ref, true)
	require.Empty(t, errs)

	ours := "---\ncurrent-jobs-urgent: 0\ncmd-put: 2\npid: 99\nversion: \"9.9\"\nrusage-utime: 1.500000\n" +
		"rusage-stime: 0.250000\nuptime: 4\nid: fedcba9876543210\nhostname: vm\nos: \"#1 SMP\"\nplatform: x86_64\n"
	got, _, errs := normalize(x, docReply(ours), false)
	require.Empty(t, errs)
	assert.Equal(t, want, got)
	assert.ElementsMatch(t, []string{"stats-uname-yaml", "stats-version", "stats-pid", "stats-rusage-utime", "stats-rusage-stime", "stats-uptime", "stats-id"}, used)

	// A value no row covers still differs, and so do a missing quote and a
	// needless one.
	for _, bad := range []string{
		strings.Replace(ours, "cmd-put: 2", "cmd-put: 3", 1),
		strings.Replace(ours, `os: "#1 SMP"`, "os: #1 SMP", 1),
		strings.Replace(ours, "hostname: vm", `hostname: "vm"`, 1),
		strings.Replace(ours, `version: "9.9"`, "version: 9.9", 1),
	} {
		got, _, _ := normalize(x, docReply(bad), false)
		assert.NotEqual(t, want, got, "should differ: %q", bad)
	}

	// A masked value must keep its shape.
	_, _, errs = normalize(x, docReply(strings.Replace(ours, "pid: 99", "pid: -1", 1)), false)
	assert.Len(t, errs, 1)
}

func TestStrictReserveTimeout(t *testing.T) {
	timedOut := []reply{{Head: "TIMED_OUT"}}
	for arg, bad := range map[string]bool{
		"0": false, "00": false, "  5": false, "2147483647": false,
		"2147483648": true, "-1": false, "-2147483648": false, "-2147483649": true, "- 1": true, "-": true, "+0": true, "\t0": true, "0 ": true, "0 x": true, "": true, "abc": true,
	} {
		got, changed, err := strictReserveTimeout(stepCtx{sent: "reserve-with-timeout " + arg + "\r\n"}, timedOut)
		require.NoError(t, err)
		assert.Equal(t, bad, changed, "argument %q", arg)
		if bad {
			assert.Equal(t, "BAD_FORMAT\r\n", render(got))
		}
	}
	_, changed, _ := strictReserveTimeout(stepCtx{sent: "reserve-with-timeout x\r\nstats\r\n"}, timedOut)
	assert.False(t, changed, "only steps that send one reserve-with-timeout line")
}

// docReply is an OK reply carrying body.
func docReply(body string) []reply {
	r := reply{Head: "OK 0", HasBody: true}
	return []reply{r.WithBody([]byte(body))}
}

// A step that expects no reply sees the reply that does come, on both
// servers, with no time window: the barrier waits for the server, not for
// the clock.
func TestQuietStepSeesLateReplies(t *testing.T) {
	for _, tg := range []target{startReference(t, 0), startStalkd(t, 0)} {
		sc := script{steps: []step{
			say("a", "list-tube-", ""),
			say("a", "used\r\nuse b\r\n", ""),            // expects nothing, gets two replies
			say("a", "put 0 0 0 1\r\nx\r\nquit\r\n", ""), // and the close
		}}
		for i := range 10 {
			got := play(tg, sc)
			assert.Empty(t, got[0], tg.name)
			assert.Equal(t, "USING default\r\nUSING b\r\n", render(got[1]), tg.name)
			assert.Equal(t, fmt.Sprintf("INSERTED %d\r\n<EOF>", i+1), render(got[2]), tg.name)
		}
	}
}
