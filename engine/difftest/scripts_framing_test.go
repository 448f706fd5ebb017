package difftest

import (
	"strings"
)

// Framing: where a line ends, the 224-byte line buffer and its window
// artefacts, NUL bytes, empty lines.
var framingScripts = []script{
	{name: "framing/bare-lf-never-ends-a-line", steps: []step{
		say("a", "put 0 0 5 3\nabc\n", ""), // 16 bytes, no CRLF: the server waits
		say("a", pad(230)+"\r\n", "BAD_FORMAT\r\n"),
		say("a", "list-tube-used\r\n", "USING default\r\n"),
	}},
	{name: "framing/bare-lf-inside-a-line", steps: []step{
		say("a", "use a\nuse b\r\n", "BAD_FORMAT\r\n"), // the name is "a\nuse b"
		say("a", "list-tube-used\r\n", "USING default\r\n"),
	}},
	{name: "framing/stray-cr-blocks-the-crlf-after-it", steps: []step{
		say("a", "use a\rb\r\n", ""), // only the first \r is looked at
		say("a", "list-tube-used\r\n", ""),
		say("a", pad(224)+"\r\n", "BAD_FORMAT\r\n"),
		say("a", "list-tube-used\r\n", "USING default\r\n"),
	}},
	{name: "framing/line-222-plus-crlf-is-the-longest", steps: []step{
		say("a", "use "+name(200)+"\r\n", "USING "+name(200)+"\r\n"),
		say("a", "pause-tube "+name(200)+" 4294967295\r\n", "PAUSED\r\n"), // 224 bytes in all
		say("a", "put "+strings.Repeat("0", 212)+" 0 5 1\r\nx\r\n", "INSERTED 1\r\n"),
	}},
	// The reference misses a CRLF whose \r is the 224th byte of a window and
	// swallows the next command (see the window-edge-crlf row). The half-close
	// makes both servers answer everything they will ever answer.
	{name: "framing/line-223-plus-crlf", steps: []step{
		halfClose("a", "use "+pad(219)+"\r\nlist-tube-used\r\n", "BAD_FORMAT\r\n<EOF>"),
	}},
	{name: "framing/line-224-plus-crlf", steps: []step{
		say("a", "use "+pad(220)+"\r\nlist-tube-used\r\n", "BAD_FORMAT\r\nUSING default\r\n"),
	}},
	{name: "framing/line-224-then-crlf-in-another-write", steps: []step{
		say("a", pad(224), ""),
		say("a", "\r\nuse zz\r\n", "BAD_FORMAT\r\nUSING zz\r\n"),
	}},
	{name: "framing/line-230-plus-crlf", steps: []step{
		say("a", pad(230)+"\r\nuse zz\r\n", "BAD_FORMAT\r\nUSING zz\r\n"),
	}},
	{name: "framing/line-of-several-windows", steps: []step{
		say("a", pad(1000)+"\r\nuse zz\r\n", "BAD_FORMAT\r\nUSING zz\r\n"),
	}},
	{name: "framing/over-long-line-in-pieces", steps: []step{
		sayParts("a", "BAD_FORMAT\r\nUSING zz\r\n",
			pad(100), pad(200), pad(300), "\r", "\nuse zz\r\n"),
	}},
	{name: "framing/window-edge-at-447", steps: []step{
		// 224 bytes discarded, then 223 more and CRLF: the \r is again the 224th byte of a window.
		halfClose("a", pad(447)+"\r\nlist-tube-used\r\n", "BAD_FORMAT\r\n<EOF>"),
	}},
	{name: "framing/stray-cr-while-discarding", steps: []step{
		// In the discard state too, only the first \r of the window is looked at.
		say("a", pad(230)+"\rx\r\n", ""),
		say("a", pad(300)+"\r\nuse zz\r\n", "BAD_FORMAT\r\nUSING zz\r\n"),
	}},
	{name: "framing/over-long-line-then-a-put", steps: []step{
		say("a", pad(300)+"\r\n"+putCmd(0, 0, 60, "body")+"peek 1\r\n", "BAD_FORMAT\r\nINSERTED 1\r\nFOUND 1 4\r\nbody\r\n"),
	}},
	{name: "framing/nul-in-a-line", steps: []step{
		say("a", "use a\x00b\r\n", "BAD_FORMAT\r\n"),
		say("a", "list-tube-used\x00\r\n", "BAD_FORMAT\r\n"),
		say("a", "\x00\r\n", "BAD_FORMAT\r\n"),
		say("a", "put 0 0 5 1\x00\r\nx\r\n", "BAD_FORMAT\r\nUNKNOWN_COMMAND\r\n"),
		say("a", "list-tube-used\r\n", "USING default\r\n"),
	}},
	{name: "framing/nul-in-a-body-is-data", steps: []step{
		say("a", "put 0 0 5 3\r\na\x00b\r\n", "INSERTED 1\r\n"),
		say("a", "peek 1\r\n", "FOUND 1 3\r\na\x00b\r\n"),
	}},
	{name: "framing/empty-lines", steps: []step{
		say("a", "\r\n", "UNKNOWN_COMMAND\r\n"),
		say("a", "\r\n\r\n", "UNKNOWN_COMMAND\r\nUNKNOWN_COMMAND\r\n"),
		say("a", " \r\n", "UNKNOWN_COMMAND\r\n"),
	}},
	{name: "framing/command-split-byte-by-byte", steps: []step{
		sayParts("a", "INSERTED 1\r\n", strings.Split(putCmd(3, 0, 60, "hello"), "")...),
		sayParts("a", "FOUND 1 5\r\nhello\r\n", strings.Split("peek-ready\r\n", "")...),
	}},
	{name: "framing/crlf-split-between-writes", steps: []step{
		say("a", "list-tube-used\r", ""),
		say("a", "\n", "USING default\r\n"),
		say("a", "put 0 0 5 2\r", ""),
		say("a", "\nab\r", ""),
		say("a", "\n", "INSERTED 1\r\n"),
	}},
	{name: "framing/pipelined-commands-one-write", steps: []step{
		say("a", "use p\r\n"+putCmd(1, 0, 60, "one")+putCmd(0, 0, 60, "two")+
			"peek-ready\r\nstats-job 1\r\nlist-tube-used\r\nwatch p\r\nreserve\r\ndelete 2\r\npeek 2\r\n",
			"USING p\r\nINSERTED 1\r\nINSERTED 2\r\nFOUND 2 3\r\ntwo\r\n"+
				okDoc("---\nid: 1\ntube: p\nstate: ready\npri: 1\nage: 0\ndelay: 0\nttr: 60\ntime-left: 0\n"+
					"file: 0\nreserves: 0\ntimeouts: 0\nreleases: 0\nburies: 0\nkicks: 0\n")+
				"USING p\r\nWATCHING 2\r\nRESERVED 2 3\r\ntwo\r\nDELETED\r\nNOT_FOUND\r\n"),
	}},
}

// Matching: how a line is matched to a command (strncmp prefixes, in the
// reference's order) and what that does to near misses.
var matchingScripts = []script{
	{name: "match/case-and-separators", steps: []step{
		say("a", "PUT 0 0 5 1\r\nx\r\n", "UNKNOWN_COMMAND\r\nUNKNOWN_COMMAND\r\n"),
		say("a", "put\t0 0 5 1\r\nx\r\n", "UNKNOWN_COMMAND\r\nUNKNOWN_COMMAND\r\n"),
		say("a", "Stats\r\n", "UNKNOWN_COMMAND\r\n"),
		say("a", "version\r\n", "UNKNOWN_COMMAND\r\n"),
		say("a", " stats\r\n", "UNKNOWN_COMMAND\r\n"),
	}},
	{name: "match/argument-commands-alone", steps: []step{
		say("a", "kick\r\n", "UNKNOWN_COMMAND\r\n"),
		say("a", "kick \r\n", "BAD_FORMAT\r\n"),
		say("a", "use\r\n", "UNKNOWN_COMMAND\r\n"),
		say("a", "use \r\n", "BAD_FORMAT\r\n"),
		say("a", "watch\r\n", "UNKNOWN_COMMAND\r\n"),
		say("a", "watch \r\n", "BAD_FORMAT\r\n"),
		say("a", "ignore\r\n", "UNKNOWN_COMMAND\r\n"),
		say("a", "ignore \r\n", "BAD_FORMAT\r\n"),
		say("a", "put\r\n", "UNKNOWN_COMMAND\r\n"),
		say("a", "put \r\n", "BAD_FORMAT\r\n"),
		say("a", "peek\r\n", "UNKNOWN_COMMAND\r\n"),
		say("a", "peek \r\n", "BAD_FORMAT\r\n"),
		say("a", "delete\r\n", "UNKNOWN_COMMAND\r\n"),
		say("a", "delete \r\n", "BAD_FORMAT\r\n"),
		say("a", "release\r\n", "UNKNOWN_COMMAND\r\n"),
		say("a", "release \r\n", "BAD_FORMAT\r\n"),
		say("a", "bury\r\n", "UNKNOWN_COMMAND\r\n"),
		say("a", "bury \r\n", "BAD_FORMAT\r\n"),
		say("a", "touch\r\n", "UNKNOWN_COMMAND\r\n"),
		say("a", "touch \r\n", "BAD_FORMAT\r\n"),
		say("a", "kick-job\r\n", "UNKNOWN_COMMAND\r\n"),
		say("a", "kick-job \r\n", "BAD_FORMAT\r\n"),
	}},
	{name: "match/prefix-falls-to-a-shorter-command", steps: []step{
		// "reserve-job" and "reserve-with-timeout" without their space match "reserve";
		// "stats-job" and "stats-tube" match "stats"; all then fail the exact match.
		say("a", "reserve-job\r\n", "BAD_FORMAT\r\n"),
		say("a", "reserve-with-timeout\r\n", "BAD_FORMAT\r\n"),
		say("a", "stats-job\r\n", "BAD_FORMAT\r\n"),
		say("a", "stats-tube\r\n", "BAD_FORMAT\r\n"),
		say("a", "reserve-job \r\n", "BAD_FORMAT\r\n"),
		say("a", "stats-job \r\n", "BAD_FORMAT\r\n"),
		say("a", "stats-tube \r\n", "BAD_FORMAT\r\n"),
	}},
	{name: "match/no-argument-commands-need-the-whole-line", steps: []step{
		say("a", "statsx\r\n", "BAD_FORMAT\r\n"),
		say("a", "stats \r\n", "BAD_FORMAT\r\n"),
		say("a", "list-tubes \r\n", "BAD_FORMAT\r\n"),
		say("a", "list-tubesx\r\n", "BAD_FORMAT\r\n"),
		say("a", "list-tube-used \r\n", "BAD_FORMAT\r\n"),
		say("a", "list-tubes-watched \r\n", "BAD_FORMAT\r\n"),
		say("a", "reserve \r\n", "BAD_FORMAT\r\n"),
		say("a", "reservex\r\n", "BAD_FORMAT\r\n"),
		say("a", "peek-ready \r\n", "BAD_FORMAT\r\n"),
		say("a", "peek-readyx\r\n", "BAD_FORMAT\r\n"),
		say("a", "peek-delayed \r\n", "BAD_FORMAT\r\n"),
		say("a", "peek-buried \r\n", "BAD_FORMAT\r\n"),
	}},
	{name: "match/quit-with-suffix-quits", steps: []step{
		say("a", "quitxyz\r\n", "<EOF>"),
	}},
	{name: "match/quit", steps: []step{
		say("a", "use q\r\nquit\r\nuse r\r\n", "USING q\r\n<EOF>"),
		say("b", "list-tubes\r\n", okList("default")), // q went with the connection
	}},
	{name: "match/quit-with-space-and-tab", steps: []step{
		say("a", "quit \r\n", "<EOF>"),
		say("b", "quit\t\r\n", "<EOF>"),
	}},
	{name: "match/pause-tube-glued-to-its-name", steps: []step{
		say("a", "use foo\r\n", "USING foo\r\n"),
		say("a", "pause-tubefoo 10\r\n", "PAUSED\r\n"),
		ask("a", "stats-tube foo\r\n", 1, fields("pause: 10", "cmd-pause-tube: 1"),
			between("pause-time-left", 8, 10)),
		say("a", "pause-tube\r\n", "BAD_FORMAT\r\n"),
		say("a", "pause-tube \r\n", "BAD_FORMAT\r\n"),
		say("a", "pause-tube foo\r\n", "BAD_FORMAT\r\n"),
	}},
}
