package codec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// defMax is the reference's default -z.
const defMax = 65535

func bad(m Op) Command { return Command{Err: ErrBadFormat, Matched: m} }

var unknown = Command{Err: ErrUnknownCommand}

func op(o Op) Command { return Command{Op: o, Matched: o} }

func withID(o Op, id uint64) Command { c := op(o); c.ID = id; return c }

func named(o Op, name string) Command { c := op(o); c.Name = []byte(name); return c }

func kick(n uint32) Command { c := op(OpKick); c.Count = n; return c }

func rwt(s int32) Command { c := op(OpReserveWithTimeout); c.Timeout = s; return c }

func release(id uint64, pri, delay uint32) Command {
	c := withID(OpRelease, id)
	c.Pri, c.Delay = pri, delay
	return c
}

func bury(id uint64, pri uint32) Command { c := withID(OpBury, id); c.Pri = pri; return c }

func pause(name string, delay uint32) Command {
	c := named(OpPauseTube, name)
	c.Delay = delay
	return c
}

func putHdr(pri, delay, ttr, size uint32) Command {
	c := op(OpPutHeader)
	c.Pri, c.Delay, c.TTR, c.Size = pri, delay, ttr, size
	return c
}

func tooBig(pri, delay, ttr, size uint32) Command {
	c := putHdr(pri, delay, ttr, size)
	c.TooBig = true
	return c
}

func putBody(pri, delay, ttr uint32, data string) Command {
	return Command{Op: OpPut, Pri: pri, Delay: delay, TTR: ttr, Size: uint32(len(data)), Body: []byte(data)}
}

var jobTooBig = Command{Err: ErrJobTooBig}

type decodeCase struct {
	name string
	in   string
	max  uint32 // 0 means defMax
	want []Command
}

func runCases(t *testing.T, cases []decodeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			maxJob := tc.max
			if maxJob == 0 {
				maxJob = defMax
			}
			got := decodeAllWays(t, maxJob, []byte(tc.in))
			require.Equal(t, tc.want, got)
		})
	}
}

// Every command in its well-formed shape.
func TestDecodeCommands(t *testing.T) {
	runCases(t, []decodeCase{
		{"put", "put 1 2 3 5\r\nhello\r\n", 0, []Command{putHdr(1, 2, 3, 5), putBody(1, 2, 3, "hello")}},
		{"put max fields", "put 4294967295 4294967295 4294967295 0\r\n\r\n", 0,
			[]Command{putHdr(4294967295, 4294967295, 4294967295, 0), putBody(4294967295, 4294967295, 4294967295, "")}},
		{"put zero body", "put 0 0 0 0\r\n\r\n", 0, []Command{putHdr(0, 0, 0, 0), putBody(0, 0, 0, "")}},
		{"put body holds CRLF and NUL", "put 0 0 0 6\r\na\r\n\x00\r\n\r\n", 0,
			[]Command{putHdr(0, 0, 0, 6), putBody(0, 0, 0, "a\r\n\x00\r\n")}},
		{"put body at max size", "put 0 0 0 10\r\n0123456789\r\n", 10,
			[]Command{putHdr(0, 0, 0, 10), putBody(0, 0, 0, "0123456789")}},
		{"peek", "peek 42\r\n", 0, []Command{withID(OpPeek, 42)}},
		{"peek-ready", "peek-ready\r\n", 0, []Command{op(OpPeekReady)}},
		{"peek-delayed", "peek-delayed\r\n", 0, []Command{op(OpPeekDelayed)}},
		{"peek-buried", "peek-buried\r\n", 0, []Command{op(OpPeekBuried)}},
		{"reserve", "reserve\r\n", 0, []Command{op(OpReserve)}},
		{"reserve-with-timeout", "reserve-with-timeout 7\r\n", 0, []Command{rwt(7)}},
		{"reserve-job", "reserve-job 9\r\n", 0, []Command{withID(OpReserveJob, 9)}},
		{"delete", "delete 18446744073709551615\r\n", 0, []Command{withID(OpDelete, 18446744073709551615)}},
		{"release", "release 5 100 30\r\n", 0, []Command{release(5, 100, 30)}},
		{"bury", "bury 5 100\r\n", 0, []Command{bury(5, 100)}},
		{"kick", "kick 10\r\n", 0, []Command{kick(10)}},
		{"kick-job", "kick-job 3\r\n", 0, []Command{withID(OpKickJob, 3)}},
		{"touch", "touch 3\r\n", 0, []Command{withID(OpTouch, 3)}},
		{"stats-job", "stats-job 3\r\n", 0, []Command{withID(OpStatsJob, 3)}},
		{"stats-tube", "stats-tube default\r\n", 0, []Command{named(OpStatsTube, "default")}},
		{"stats", "stats\r\n", 0, []Command{op(OpStats)}},
		{"use", "use foo\r\n", 0, []Command{named(OpUse, "foo")}},
		{"watch", "watch foo\r\n", 0, []Command{named(OpWatch, "foo")}},
		{"ignore", "ignore foo\r\n", 0, []Command{named(OpIgnore, "foo")}},
		{"list-tubes-watched", "list-tubes-watched\r\n", 0, []Command{op(OpListTubesWatched)}},
		{"list-tube-used", "list-tube-used\r\n", 0, []Command{op(OpListTubeUsed)}},
		{"list-tubes", "list-tubes\r\n", 0, []Command{op(OpListTubes)}},
		{"quit", "quit\r\n", 0, []Command{op(OpQuit)}},
		{"pause-tube", "pause-tube foo 10\r\n", 0, []Command{pause("foo", 10)}},
	})
}

// Framing and matching: only the first '\r' of the buffer can end a line, and only if '\n'
// follows; prefixes are matched case-sensitively in the reference's order; commands without
// arguments must match the whole line, except quit.
func TestDecodeFramingAndMatching(t *testing.T) {
	runCases(t, []decodeCase{
		// [observed] a bare \n never ends a line: no reply at all.
		{"bare LF never ends a line", "put 0 0 5 3\nabc\n", 0, nil},
		{"stray CR hides a later CRLF", "use a\rb\r\nuse c\r\n", 0, nil},
		{"CR at the end waits for its LF", "stats\r", 0, nil},
		{"NUL in line", "stats\x00\r\n", 0, []Command{bad(OpNone)}},
		{"NUL in name", "use f\x00o\r\n", 0, []Command{bad(OpNone)}},
		{"NUL before pause-tube args is not counted", "pause-tube\x00 5\r\n", 0, []Command{bad(OpNone)}},
		{"empty line", "\r\n", 0, []Command{unknown}},
		{"upper case", "PUT\r\n", 0, []Command{unknown}},
		{"put TAB", "put\t1 2 3 4\r\n", 0, []Command{unknown}},
		{"kick alone", "kick\r\n", 0, []Command{unknown}},
		{"kick space", "kick \r\n", 0, []Command{bad(OpKick)}},
		{"use alone", "use\r\n", 0, []Command{unknown}},
		{"use space", "use \r\n", 0, []Command{bad(OpUse)}},
		{"peek alone", "peek\r\n", 0, []Command{unknown}},
		{"list-tube", "list-tube\r\n", 0, []Command{unknown}},
		{"version", "version\r\n", 0, []Command{unknown}},
		{"statsx", "statsx\r\n", 0, []Command{bad(OpStats)}},
		{"stats space", "stats \r\n", 0, []Command{bad(OpStats)}},
		{"stats-tube without name", "stats-tube\r\n", 0, []Command{bad(OpStats)}},
		{"stats-tube empty name", "stats-tube \r\n", 0, []Command{bad(OpStatsTube)}},
		{"list-tubes space", "list-tubes \r\n", 0, []Command{bad(OpListTubes)}},
		{"list-tubesx", "list-tubesx\r\n", 0, []Command{bad(OpListTubes)}},
		{"list-tube-usedx", "list-tube-usedx\r\n", 0, []Command{bad(OpListTubeUsed)}},
		{"list-tubes-watched space", "list-tubes-watched \r\n", 0, []Command{bad(OpListTubesWatched)}},
		{"reserve space", "reserve \r\n", 0, []Command{bad(OpReserve)}},
		{"reserve-job without space", "reserve-job\r\n", 0, []Command{bad(OpReserve)}},
		{"peek-ready space", "peek-ready \r\n", 0, []Command{bad(OpPeekReady)}},
		{"peek-delayedx", "peek-delayedx\r\n", 0, []Command{bad(OpPeekDelayed)}},
		{"peek-buried space", "peek-buried \r\n", 0, []Command{bad(OpPeekBuried)}},
		{"quit is a prefix", "quitxyz\r\n", 0, []Command{op(OpQuit)}},
		{"pause-tube needs no space", "pause-tubefoo 10\r\n", 0, []Command{pause("foo", 10)}},
		{"pipelined after an unknown", "bogus\r\nstats\r\n", 0, []Command{unknown, op(OpStats)}},
	})
}

// The 224-byte window: a line is at most 224 bytes, CRLF included; an over-long line is
// discarded window by window and answered BAD_FORMAT once, after its CRLF.
func TestDecodeOverlongLines(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	runCases(t, []decodeCase{
		{"222+CRLF parses normally", a(222) + "\r\nuse zz\r\n", 0, []Command{unknown, named(OpUse, "zz")}},
		// The \r is byte 224, beyond the 223 the reference scans: it misses this CRLF, and
		// the next command ends the bad line (observed). We answer at the CRLF and keep
		// the next command.
		{"223+CRLF keeps the next command", a(223) + "\r\nuse zz\r\nuse yy\r\n", 0,
			[]Command{bad(OpNone), named(OpUse, "zz"), named(OpUse, "yy")}},
		{"223+CR, then no LF", a(223) + "\rxuse zz\r\nuse yy\r\n", 0,
			[]Command{bad(OpNone), named(OpUse, "yy")}},
		{"230+CRLF", a(230) + "\r\nuse zz\r\n", 0, []Command{bad(OpNone), named(OpUse, "zz")}},
		{"224 exactly then CRLF", a(224) + "\r\nuse zz\r\n", 0, []Command{bad(OpNone), named(OpUse, "zz")}},
		{"overlong, no end yet", a(300), 0, nil},
		{"several windows", a(1000) + "\r\nstats\r\n", 0, []Command{bad(OpNone), op(OpStats)}},
		// \r at byte 448 is the last byte of window 2 (the reference misses it again).
		{"447+CRLF straddles window 2", a(447) + "\r\nuse zz\r\nuse yy\r\n", 0,
			[]Command{bad(OpNone), named(OpUse, "zz"), named(OpUse, "yy")}},
		{"446+CRLF", a(446) + "\r\nuse zz\r\n", 0, []Command{bad(OpNone), named(OpUse, "zz")}},
		// [observed] a stray \r blocks each window separately.
		{"stray CR in a skip window", a(224) + "x\ry\r\nuse zz\r\n" + strings.Repeat("b", 224) + "\r\nuse qq\r\n", 0,
			[]Command{bad(OpNone), named(OpUse, "qq")}},
		{"stray CR in the first window", "use x\ry\r\n" + strings.Repeat("c", 300) + "\r\nuse rr\r\n", 0,
			[]Command{bad(OpNone), named(OpUse, "rr")}},
		// [observed] no reply: every window starts with a \r not followed by \n.
		{"CR run", strings.Repeat("\r", 300) + "\nuse zz\r\n", 0, nil},
		{"longest legal line", "pause-tube " + a(200) + " 4294967295\r\n", 0, []Command{pause(a(200), 4294967295)}},
	})
}
