package codec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Numbers, as the reference's read_u32/read_u64 read them: spaces (only spaces) skipped, a
// digit required (no sign), base 10, overflow refused, and nothing after the last field.
func TestDecodeNumbers(t *testing.T) {
	runCases(t, []decodeCase{
		{"id 0", "peek 0\r\n", 0, []Command{withID(OpPeek, 0)}},
		{"leading zeros", "peek 007\r\n", 0, []Command{withID(OpPeek, 7)}},
		{"repeated spaces", "peek   7\r\n", 0, []Command{withID(OpPeek, 7)}},
		{"u64 max", "peek 18446744073709551615\r\n", 0, []Command{withID(OpPeek, 18446744073709551615)}},
		{"u64 overflow", "peek 18446744073709551616\r\n", 0, []Command{bad(OpPeek)}},
		{"huge", "peek 99999999999999999999999999\r\n", 0, []Command{bad(OpPeek)}},
		{"plus", "peek +1\r\n", 0, []Command{bad(OpPeek)}},
		{"minus", "delete -1\r\n", 0, []Command{bad(OpDelete)}},
		{"tab", "touch \t1\r\n", 0, []Command{bad(OpTouch)}},
		{"no digits", "touch \r\n", 0, []Command{bad(OpTouch)}},
		{"trailing space", "peek 1 \r\n", 0, []Command{bad(OpPeek)}},
		{"trailing garbage", "delete 1x\r\n", 0, []Command{bad(OpDelete)}},
		{"kick-job trailing", "kick-job 1 \r\n", 0, []Command{bad(OpKickJob)}},
		{"reserve-job trailing", "reserve-job 1x\r\n", 0, []Command{bad(OpReserveJob)}},
		{"stats-job trailing", "stats-job 1 2\r\n", 0, []Command{bad(OpStatsJob)}},
		{"release", "release  1  2  3\r\n", 0, []Command{release(1, 2, 3)}},
		{"release missing delay", "release 1 2\r\n", 0, []Command{bad(OpRelease)}},
		{"release trailing", "release 1 2 3 \r\n", 0, []Command{bad(OpRelease)}},
		{"release delay overflow", "release 1 2 4294967296\r\n", 0, []Command{bad(OpRelease)}},
		{"release pri overflow", "release 1 4294967296 0\r\n", 0, []Command{bad(OpRelease)}},
		{"release fields glued", "release 1,2 3\r\n", 0, []Command{bad(OpRelease)}},
		{"bury", "bury 1 4294967295\r\n", 0, []Command{bury(1, 4294967295)}},
		{"bury missing pri", "bury 1\r\n", 0, []Command{bad(OpBury)}},
		{"bury extra", "bury 1 2 3\r\n", 0, []Command{bad(OpBury)}},
		// reserve-with-timeout follows 1.13 (1.12's strtol accepted "0 garbage", "+0" and
		// tabs, and wrapped values past 32 bits to 0; observed), except that a negative number
		// waits forever, as in 1.12: a Java client sends -1.
		{"rwt 0", "reserve-with-timeout 0\r\n", 0, []Command{rwt(0)}},
		{"rwt spaces", "reserve-with-timeout   05\r\n", 0, []Command{rwt(5)}},
		{"rwt int max", "reserve-with-timeout 2147483647\r\n", 0, []Command{rwt(2147483647)}},
		{"rwt above int max", "reserve-with-timeout 2147483648\r\n", 0, []Command{bad(OpReserveWithTimeout)}},
		{"rwt garbage", "reserve-with-timeout 0 garbage\r\n", 0, []Command{bad(OpReserveWithTimeout)}},
		{"rwt -1 forever", "reserve-with-timeout -1\r\n", 0, []Command{rwt(-1)}},
		{"rwt negative forever", "reserve-with-timeout  -2147483648\r\n", 0, []Command{rwt(-1)}},
		{"rwt minus zero", "reserve-with-timeout -0\r\n", 0, []Command{rwt(0)}},
		{"rwt negative past 32 bits", "reserve-with-timeout -2147483649\r\n", 0, []Command{bad(OpReserveWithTimeout)}},
		{"rwt negative garbage", "reserve-with-timeout -1x\r\n", 0, []Command{bad(OpReserveWithTimeout)}},
		{"rwt minus space", "reserve-with-timeout - 1\r\n", 0, []Command{bad(OpReserveWithTimeout)}},
		{"rwt minus alone", "reserve-with-timeout -\r\n", 0, []Command{bad(OpReserveWithTimeout)}},
		{"rwt double minus", "reserve-with-timeout --1\r\n", 0, []Command{bad(OpReserveWithTimeout)}},
		{"rwt plus", "reserve-with-timeout +0\r\n", 0, []Command{bad(OpReserveWithTimeout)}},
		{"rwt tab", "reserve-with-timeout \t5\r\n", 0, []Command{bad(OpReserveWithTimeout)}},
		{"rwt empty", "reserve-with-timeout \r\n", 0, []Command{bad(OpReserveWithTimeout)}},
		{"rwt without space", "reserve-with-timeout\r\n", 0, []Command{bad(OpReserve)}},
	})
}

// kick reads its bound with C strtoul (all observed on 1.12): leading whitespace, an optional
// sign (a '-' negates modulo 2^64), trailing garbage ignored, the result truncated to 32 bits.
func TestDecodeKick(t *testing.T) {
	runCases(t, []decodeCase{
		{"garbage ignored", "kick 10abc\r\n", 0, []Command{kick(10)}},
		{"minus one kicks all", "kick -1\r\n", 0, []Command{kick(4294967295)}},
		{"2^32 truncates to 0", "kick 4294967296\r\n", 0, []Command{kick(0)}},
		{"2^32+5 truncates", "kick 4294967301\r\n", 0, []Command{kick(5)}},
		{"whitespace", "kick \t \v\f\n7\r\n", 0, []Command{kick(7)}},
		{"plus", "kick +3\r\n", 0, []Command{kick(3)}},
		{"u64 max", "kick 18446744073709551615\r\n", 0, []Command{kick(4294967295)}},
		{"minus u64 max wraps to 1", "kick -18446744073709551615\r\n", 0, []Command{kick(1)}},
		{"above u64", "kick 18446744073709551616\r\n", 0, []Command{bad(OpKick)}},
		{"minus above u64", "kick -18446744073709551616\r\n", 0, []Command{bad(OpKick)}},
		{"sign then space", "kick - 1\r\n", 0, []Command{bad(OpKick)}},
		{"no digits", "kick x\r\n", 0, []Command{bad(OpKick)}},
		{"only spaces", "kick   \r\n", 0, []Command{bad(OpKick)}},
		{"zero", "kick 0\r\n", 0, []Command{kick(0)}},
		{"hex is decimal 0", "kick 0x10\r\n", 0, []Command{kick(0)}},
	})
}

// Tube names: 1 to 200 bytes of A-Z a-z 0-9 - + / ; . $ _ ( ), not starting with '-'.
func TestDecodeTubeNames(t *testing.T) {
	n200, n201 := strings.Repeat("n", 200), strings.Repeat("n", 201)
	runCases(t, []decodeCase{
		{"all name chars", "use AZaz09-+/;.$_()\r\n", 0, []Command{named(OpUse, "AZaz09-+/;.$_()")}},
		{"trailing dash", "use foo-\r\n", 0, []Command{named(OpUse, "foo-")}},
		{"leading dash", "use -foo\r\n", 0, []Command{bad(OpUse)}},
		{"extra space", "use foo bar\r\n", 0, []Command{bad(OpUse)}},
		{"two spaces", "use  foo\r\n", 0, []Command{bad(OpUse)}},
		{"trailing tab", "use foo\t\r\n", 0, []Command{bad(OpUse)}},
		{"ampersand", "watch a&b\r\n", 0, []Command{bad(OpWatch)}},
		{"200 chars", "watch " + n200 + "\r\n", 0, []Command{named(OpWatch, n200)}},
		{"201 chars", "watch " + n201 + "\r\n", 0, []Command{bad(OpWatch)}},
		{"ignore bad", "ignore -x\r\n", 0, []Command{bad(OpIgnore)}},
		{"stats-tube bad", "stats-tube a b\r\n", 0, []Command{bad(OpStatsTube)}},
		{"pause spaces", "pause-tube  default  0\r\n", 0, []Command{pause("default", 0)}},
		{"pause name with digits", "pause-tube foo5 10\r\n", 0, []Command{pause("foo5", 10)}},
		{"pause 200", "pause-tube " + n200 + " 1\r\n", 0, []Command{pause(n200, 1)}},
		// The name and delay parse, so the reference counts the command, then rejects the
		// name ([observed] counted).
		{"pause leading dash", "pause-tube -bad 5\r\n", 0, []Command{{Op: OpPauseTube, Matched: OpPauseTube, Err: ErrBadFormat}}},
		{"pause 201", "pause-tube " + n201 + " 5\r\n", 0, []Command{{Op: OpPauseTube, Matched: OpPauseTube, Err: ErrBadFormat}}},
		// [observed] none of these is counted.
		{"pause alone", "pause-tube\r\n", 0, []Command{bad(OpPauseTube)}},
		{"pause space", "pause-tube \r\n", 0, []Command{bad(OpPauseTube)}},
		{"pause no delay", "pause-tube foo\r\n", 0, []Command{bad(OpPauseTube)}},
		{"pause digits are name", "pause-tube foo10\r\n", 0, []Command{bad(OpPauseTube)}},
		{"pause bad char", "pause-tube &x 5\r\n", 0, []Command{bad(OpPauseTube)}},
		{"pause name run stops at &", "pause-tube foo&bar 5\r\n", 0, []Command{bad(OpPauseTube)}},
		{"pause tab", "pause-tube default\t10\r\n", 0, []Command{bad(OpPauseTube)}},
		{"pause trailing", "pause-tube default 10 \r\n", 0, []Command{bad(OpPauseTube)}},
		{"pause delay garbage", "pause-tube default 5x\r\n", 0, []Command{bad(OpPauseTube)}},
		{"pause delay overflow", "pause-tube default 4294967296\r\n", 0, []Command{bad(OpPauseTube)}},
	})
}

// put: four numbers (pri, delay, ttr, bytes); a size over the maximum is JOB_TOO_BIG after the
// body is swallowed, and that check comes before the trailing-garbage check.
func TestDecodePut(t *testing.T) {
	runCases(t, []decodeCase{
		{"spaces and zeros", "put  1  2  3  00002\r\nab\r\n", 0, []Command{putHdr(1, 2, 3, 2), putBody(1, 2, 3, "ab")}},
		{"pri overflow", "put 4294967296 0 0 0\r\n\r\n", 0, []Command{bad(OpPutHeader), unknown}},
		{"size is read_u32, not strtoul", "put 0 0 0 +5\r\nhello\r\n", 0, []Command{bad(OpPutHeader), unknown}},
		{"negative size", "put 0 0 0 -1\r\n", 0, []Command{bad(OpPutHeader)}},
		{"size overflow", "put 0 0 0 4294967296\r\n", 0, []Command{bad(OpPutHeader)}},
		{"missing size", "put 0 0 0\r\n", 0, []Command{bad(OpPutHeader)}},
		{"tab", "put 0\t0 0 0\r\n", 0, []Command{bad(OpPutHeader)}},
		// Counted (numbers parsed) but BAD_FORMAT, nothing swallowed: [observed] the body is
		// then parsed as a command.
		{"trailing space", "put 1 2 3 2 \r\nab\r\n", 0,
			[]Command{{Op: OpPutHeader, Matched: OpPutHeader, Err: ErrBadFormat}, unknown}},
		{"trailing garbage", "put 0 0 0 1 x\r\nx\r\n", 0,
			[]Command{{Op: OpPutHeader, Matched: OpPutHeader, Err: ErrBadFormat}, unknown}},
		// [observed] the reference's unit test: -z 10, the next 13 bytes are eaten.
		{"too big swallows size+2", "put 0 0 0 11\r\ndelete 9999\r\nput 0 0 0 1\r\nx\r\n", 10,
			[]Command{tooBig(0, 0, 0, 11), jobTooBig, putHdr(0, 0, 0, 1), putBody(0, 0, 0, "x")}},
		// Size is checked before garbage: still swallowed.
		{"too big with garbage", "put 1 0 5 11 x\r\ndelete 9999\r\nuse a\r\n", 10,
			[]Command{tooBig(1, 0, 5, 11), jobTooBig, named(OpUse, "a")}},
		{"too big, short input", "put 0 0 0 11\r\ndelete", 10, []Command{tooBig(0, 0, 0, 11)}},
		{"too big eats anything", "put 0 0 0 20\r\n" + strings.Repeat("\r\n", 11) + "stats\r\n", 10,
			[]Command{tooBig(0, 0, 0, 20), jobTooBig, op(OpStats)}},
		{"max job 2^32-1", "put 0 0 0 1\r\nx\r\nput 0 0 0 0\r\n\r\n", 0xffffffff,
			[]Command{putHdr(0, 0, 0, 1), putBody(0, 0, 0, "x"), putHdr(0, 0, 0, 0), putBody(0, 0, 0, "")}},
		// [observed] no resync: the left-over \n prefixes the next command.
		{"expected CRLF", "put 0 0 0 3\r\nabcd\r\nuse x\r\n", 0,
			[]Command{putHdr(0, 0, 0, 3), {Op: OpPut, Err: ErrExpectedCRLF, Size: 3}, unknown}},
		{"expected CRLF, LF CR", "put 0 0 0 3\r\nab\r\n\r\nuse x\r\n", 0,
			[]Command{putHdr(0, 0, 0, 3), {Op: OpPut, Err: ErrExpectedCRLF, Size: 3}, unknown}},
		{"expected CRLF keeps header fields", "put 7 8 9 0\r\nxy", 0,
			[]Command{putHdr(7, 8, 9, 0), {Op: OpPut, Err: ErrExpectedCRLF, Pri: 7, Delay: 8, TTR: 9}}},
		{"partial body", "put 0 0 0 5\r\nhel", 0, []Command{putHdr(0, 0, 0, 5)}},
		{"bare LF in body is data", "put 0 0 0 5\r\nhe\nlo\r\n", 0, []Command{putHdr(0, 0, 0, 5), putBody(0, 0, 0, "he\nlo")}},
	})
}

func TestDecodeMaxJobZero(t *testing.T) {
	got, rest, inBody := decodeChunks(t, 0, []byte("put 0 0 0 0\r\n\r\nput 0 0 0 1\r\nx\r\nstats\r\n"))
	require.Equal(t, []Command{putHdr(0, 0, 0, 0), putBody(0, 0, 0, ""), tooBig(0, 0, 0, 1), jobTooBig, op(OpStats)}, got)
	require.Empty(t, rest)
	require.False(t, inBody)
}
