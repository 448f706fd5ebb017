package difftest

import (
	"fmt"
	"strings"
)

// Numbers: read_u32/read_u64 (spaces only, digits only, overflow, nothing
// after the last field).
var numberScripts = []script{
	{name: "numbers/leading-zeros-and-repeated-spaces", steps: []step{
		say("a", "put 0001  0000   0060 0003\r\nabc\r\n", "INSERTED 1\r\n"),
		ask("a", "stats-job 0001\r\n", 1, fields("pri: 1", "delay: 0", "ttr: 60")),
		say("a", "peek   000001\r\n", "FOUND 1 3\r\nabc\r\n"),
	}},
	{name: "numbers/tabs-and-signs-are-bad", steps: []step{
		say("a", "put 1\t0 60 3\r\nabc\r\n", "BAD_FORMAT\r\nUNKNOWN_COMMAND\r\n"),
		say("a", "put +1 0 60 3\r\nabc\r\n", "BAD_FORMAT\r\nUNKNOWN_COMMAND\r\n"),
		say("a", "put -1 0 60 3\r\nabc\r\n", "BAD_FORMAT\r\nUNKNOWN_COMMAND\r\n"),
		say("a", "put 1 0 60 -3\r\nabc\r\n", "BAD_FORMAT\r\nUNKNOWN_COMMAND\r\n"),
		say("a", "put 1 0 60 3\r\nabc\r\n", "INSERTED 1\r\n"),
		say("a", "peek\t1\r\n", "UNKNOWN_COMMAND\r\n"),
		say("a", "peek \t1\r\n", "BAD_FORMAT\r\n"),
		say("a", "peek +1\r\n", "BAD_FORMAT\r\n"),
		say("a", "peek -1\r\n", "BAD_FORMAT\r\n"),
		say("a", "peek 1x\r\n", "BAD_FORMAT\r\n"),
		say("a", "peek 0x1\r\n", "BAD_FORMAT\r\n"),
	}},
	{name: "numbers/u32-bounds", steps: []step{
		say("a", "put 4294967295 0 4294967295 1\r\nx\r\n", "INSERTED 1\r\n"),
		ask("a", "stats-job 1\r\n", 1, fields("pri: 4294967295", "ttr: 4294967295")),
		say("a", "put 4294967296 0 60 1\r\nx\r\n", "BAD_FORMAT\r\nUNKNOWN_COMMAND\r\n"),
		say("a", "put 0 4294967296 60 1\r\nx\r\n", "BAD_FORMAT\r\nUNKNOWN_COMMAND\r\n"),
		say("a", "put 0 0 4294967296 1\r\nx\r\n", "BAD_FORMAT\r\nUNKNOWN_COMMAND\r\n"),
		say("a", "put 0 0 60 4294967296\r\nx\r\n", "BAD_FORMAT\r\nUNKNOWN_COMMAND\r\n"),
		say("a", "put 0 0 60 99999999999999999999999\r\nx\r\n", "BAD_FORMAT\r\nUNKNOWN_COMMAND\r\n"),
		say("a", "put 0 4294967295 60 1\r\nx\r\n", "INSERTED 2\r\n"),
		ask("a", "stats-job 2\r\n", 1, fields("state: delayed", "delay: 4294967295"),
			between("time-left", 4294967290, 4294967295)),
		say("a", "pause-tube default 4294967296\r\n", "BAD_FORMAT\r\n"),
		say("a", "pause-tube default 4294967295\r\n", "PAUSED\r\n"),
		say("a", "release 1 4294967296 0\r\n", "BAD_FORMAT\r\n"),
		say("a", "bury 1 4294967296\r\n", "BAD_FORMAT\r\n"),
	}},
	{name: "numbers/u64-ids", steps: []step{
		say("a", "peek 18446744073709551615\r\n", "NOT_FOUND\r\n"),
		say("a", "peek 18446744073709551616\r\n", "BAD_FORMAT\r\n"),
		say("a", "delete 99999999999999999999999\r\n", "BAD_FORMAT\r\n"),
		say("a", "stats-job 18446744073709551616\r\n", "BAD_FORMAT\r\n"),
		say("a", "peek 0\r\n", "NOT_FOUND\r\n"),
		say("a", "delete 0\r\n", "NOT_FOUND\r\n"),
		say("a", "kick-job 0\r\n", "NOT_FOUND\r\n"),
		say("a", "reserve-job 0\r\n", "NOT_FOUND\r\n"),
		say("a", "touch 0\r\n", "NOT_FOUND\r\n"),
		say("a", "stats-job 0\r\n", "NOT_FOUND\r\n"),
	}},
	{name: "numbers/nothing-after-the-last-field", steps: []step{
		say("a", putCmd(0, 0, 60, "x"), "INSERTED 1\r\n"),
		say("a", "peek 1 \r\n", "BAD_FORMAT\r\n"),
		say("a", "stats-job 1 \r\n", "BAD_FORMAT\r\n"),
		say("a", "kick-job 1 \r\n", "BAD_FORMAT\r\n"),
		say("a", "reserve-job 1 \r\n", "BAD_FORMAT\r\n"),
		say("a", "delete 1 \r\n", "BAD_FORMAT\r\n"),
		say("a", "pause-tube default 0 \r\n", "BAD_FORMAT\r\n"),
		say("a", "put 0 0 60 1 \r\nx\r\n", "BAD_FORMAT\r\nUNKNOWN_COMMAND\r\n"),
		say("a", "reserve\r\n", "RESERVED 1 1\r\nx\r\n"),
		say("a", "touch 1 \r\n", "BAD_FORMAT\r\n"),
		say("a", "release 1 0 0 \r\n", "BAD_FORMAT\r\n"),
		say("a", "release 1 0 0x\r\n", "BAD_FORMAT\r\n"),
		say("a", "bury 1 0 \r\n", "BAD_FORMAT\r\n"),
		say("a", "bury 1\r\n", "BAD_FORMAT\r\n"),
		say("a", "release 1 0\r\n", "BAD_FORMAT\r\n"),
		say("a", "touch 1\r\n", "TOUCHED\r\n"),
		say("a", "bury 1 7\r\n", "BURIED\r\n"),
		ask("a", "stats-job 1\r\n", 1, fields("state: buried", "pri: 7", "buries: 1")),
	}},
	{name: "numbers/ttr-zero-becomes-one", steps: []step{
		say("a", putCmd(0, 0, 0, "x"), "INSERTED 1\r\n"),
		ask("a", "stats-job 1\r\n", 1, fields("ttr: 1")),
	}},
}

// put: the size check before the garbage check, what each failure does to
// the byte stream, and which ids are spent.
var putScripts = []script{
	{name: "put/job-too-big-swallows-bytes-plus-two", maxJob: 10, steps: []step{
		say("a", "put 0 0 0 11\r\ndelete 9999\r\n"+putCmd(0, 0, 60, "x"), "JOB_TOO_BIG\r\nINSERTED 1\r\n"),
	}},
	{name: "put/job-too-big-before-trailing-garbage", maxJob: 10, steps: []step{
		say("a", "put 0 0 60 11 x\r\nabcdefghijk\r\n"+putCmd(0, 0, 60, "y"), "JOB_TOO_BIG\r\nINSERTED 1\r\n"),
		say("a", "put 0 0 60 11 x\r\n", ""), // 13 bytes to swallow, none here yet
		say("a", "0123456789", ""),
		// 3 more complete the 13: the swallowing ends inside a CRLF, and "\n" starts the next line.
		say("a", "ab\r\nlist-tube-used\r\n", "JOB_TOO_BIG\r\nUNKNOWN_COMMAND\r\n"),
		say("a", "list-tube-used\r\n", "USING default\r\n"),
	}},
	{name: "put/job-too-big-body-in-pieces", maxJob: 10, steps: []step{
		say("a", "put 0 0 0 20\r\n0123456789", ""),
		say("a", "0123456789\r", ""),
		say("a", "\nlist-tube-used\r\n", "JOB_TOO_BIG\r\nUSING default\r\n"),
	}},
	{name: "put/size-at-the-limit", maxJob: 10, steps: []step{
		say("a", putCmd(0, 0, 60, "0123456789"), "INSERTED 1\r\n"),
		say("a", putCmd(0, 0, 60, "0123456789a"), "JOB_TOO_BIG\r\n"),
		say("a", putCmd(0, 0, 60, ""), "INSERTED 2\r\n"),
		ask("a", "stats\r\n", 1, fields("cmd-put: 3", "total-jobs: 2", "max-job-size: 10")),
	}},
	{name: "put/default-limit-65535", steps: []step{
		say("a", putCmd(0, 0, 60, strings.Repeat("b", 65535)), "INSERTED 1\r\n"),
		say("a", putCmd(0, 0, 60, strings.Repeat("b", 65536))+putCmd(0, 0, 60, "z"),
			"JOB_TOO_BIG\r\nINSERTED 2\r\n"),
		ask("a", "peek 1\r\n", 1),
	}},
	{name: "put/bad-format-body-becomes-commands", steps: []step{
		say("a", "put 0 0 60 14 x\r\nlist-tube-used\r\n", "BAD_FORMAT\r\nUSING default\r\n"),
		say("a", "put 0 0 60 5 \r\nhello\r\n", "BAD_FORMAT\r\nUNKNOWN_COMMAND\r\n"),
		say("a", "put 0 0 60\r\nhello\r\n", "BAD_FORMAT\r\nUNKNOWN_COMMAND\r\n"),
		say("a", "put 0 0 60 5 6\r\nhello\r\n", "BAD_FORMAT\r\nUNKNOWN_COMMAND\r\n"),
		say("a", putCmd(0, 0, 60, "x"), "INSERTED 1\r\n"), // no id spent
	}},
	{name: "put/expected-crlf-leaves-a-byte", steps: []step{
		say("a", "put 0 0 60 3\r\nabcd\r\nlist-tube-used\r\n",
			"EXPECTED_CRLF\r\nUNKNOWN_COMMAND\r\n"), // "\nlist-tube-used"
		say("a", "list-tube-used\r\n", "USING default\r\n"),
		say("a", putCmd(0, 0, 60, "x"), "INSERTED 2\r\n"), // id 1 was spent
		say("a", "peek 1\r\n", "NOT_FOUND\r\n"),
		ask("a", "stats\r\n", 1, fields("cmd-put: 2", "total-jobs: 1", "current-jobs-ready: 1")),
	}},
	{name: "put/expected-crlf-waits-for-all-bytes", steps: []step{
		say("a", "put 0 0 60 3\r\nab\r\n", ""), // 4 of the 5 bytes
		say("a", "X", "EXPECTED_CRLF\r\n"),
		say("a", "put 0 0 60 0\r\nxy", "EXPECTED_CRLF\r\n"),
		say("a", "put 0 0 60 2\r\nab\n\r", "EXPECTED_CRLF\r\n"),
		say("a", putCmd(0, 0, 60, "x"), "INSERTED 4\r\n"),
	}},
	{name: "put/zero-length-body", steps: []step{
		say("a", "put 0 0 60 0\r\n\r\n", "INSERTED 1\r\n"),
		say("a", "peek 1\r\n", "FOUND 1 0\r\n\r\n"),
		say("a", "reserve\r\n", "RESERVED 1 0\r\n\r\n"),
	}},
	{name: "put/body-with-crlf-inside", steps: []step{
		say("a", putCmd(0, 0, 60, "a\r\nput 0 0 0 0\r\n\r\n"), "INSERTED 1\r\n"),
		say("a", "peek 1\r\n", "FOUND 1 18\r\na\r\nput 0 0 0 0\r\n\r\n\r\n"),
	}},
	{name: "put/disconnect-mid-body-spends-the-id", steps: []step{
		say("a", "put 0 0 60 5\r\nab", ""),
		hangup("a"),
		say("b", putCmd(0, 0, 60, "x"), "INSERTED 2\r\n"),
		ask("b", "stats\r\n", 1, fields("cmd-put: 2", "total-jobs: 1", "current-producers: 1", "total-connections: 2")),
	}},
	{name: "put/hundred-pipelined", steps: []step{
		say("a", strings.Repeat(putCmd(0, 0, 60, "job"), 100)+"peek 100\r\n",
			hundredInserted()+"FOUND 100 3\r\njob\r\n"),
		ask("a", "stats\r\n", 1, fields("cmd-put: 100", "current-jobs-ready: 100", "current-jobs-urgent: 100")),
	}},
	{name: "put/body-in-pieces", steps: []step{
		sayParts("a", "INSERTED 1\r\n", "put 10 0 6", "0 5\r", "\nhel", "lo", "\r", "\n"),
		say("a", "reserve\r\n", "RESERVED 1 5\r\nhello\r\n"),
		ask("a", "stats-job 1\r\n", 1, fields("pri: 10", "ttr: 60", "state: reserved"),
			between("time-left", 58, 60)),
	}},
}

// hundredInserted is the reply to a hundred puts.
func hundredInserted() string {
	var b strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&b, "INSERTED %d\r\n", i)
	}
	return b.String()
}
