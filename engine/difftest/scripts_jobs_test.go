package difftest

// Jobs: who may delete, release, bury and touch which job.
var jobScripts = []script{
	{name: "jobs/delete-any-unreserved-job-in-any-tube", steps: []step{
		say("a", "use t\r\n"+putCmd(0, 0, 60, "r")+putCmd(0, 100, 60, "d")+putCmd(0, 0, 60, "b"),
			"USING t\r\nINSERTED 1\r\nINSERTED 2\r\nINSERTED 3\r\n"),
		say("a", "watch t\r\nignore default\r\nreserve-job 3\r\nbury 3 0\r\n",
			"WATCHING 2\r\nWATCHING 1\r\nRESERVED 3 1\r\nb\r\nBURIED\r\n"),
		say("b", "delete 1\r\n", "DELETED\r\n"), // ready, another tube, another connection
		say("b", "delete 2\r\n", "DELETED\r\n"), // delayed
		say("b", "delete 3\r\n", "DELETED\r\n"), // buried
		say("b", "delete 3\r\n", "NOT_FOUND\r\n"),
		say("b", "delete 4\r\n", "NOT_FOUND\r\n"),
		ask("b", "stats-tube t\r\n", 1, fields("cmd-delete: 3", "total-jobs: 3", "current-jobs-ready: 0")),
	}},
	{name: "jobs/delete-reserved-by-another-connection", steps: []step{
		say("a", putCmd(0, 0, 60, "x"), "INSERTED 1\r\n"),
		say("a", "reserve\r\n", "RESERVED 1 1\r\nx\r\n"),
		say("b", "delete 1\r\n", "NOT_FOUND\r\n"),
		say("b", "release 1 0 0\r\n", "NOT_FOUND\r\n"),
		say("b", "bury 1 0\r\n", "NOT_FOUND\r\n"),
		say("b", "touch 1\r\n", "NOT_FOUND\r\n"),
		say("b", "reserve-job 1\r\n", "NOT_FOUND\r\n"),
		say("b", "kick-job 1\r\n", "NOT_FOUND\r\n"),
		say("b", "peek 1\r\n", "FOUND 1 1\r\nx\r\n"),
		ask("b", "stats-job 1\r\n", 1, fields("state: reserved", "reserves: 1")),
		say("a", "delete 1\r\n", "DELETED\r\n"),
		ask("b", "stats\r\n", 1, fields("cmd-delete: 2", "cmd-release: 1", "cmd-bury: 1", "cmd-touch: 1",
			"current-jobs-reserved: 0", "current-producers: 1", "current-workers: 1")),
	}},
	{name: "jobs/release-bury-touch-need-your-own-reservation", steps: []step{
		say("a", putCmd(5, 0, 60, "x")+putCmd(5, 0, 60, "y"), "INSERTED 1\r\nINSERTED 2\r\n"),
		say("a", "release 1 0 0\r\n", "NOT_FOUND\r\n"), // ready, not reserved
		say("a", "bury 1 0\r\n", "NOT_FOUND\r\n"),
		say("a", "touch 1\r\n", "NOT_FOUND\r\n"),
		say("a", "reserve\r\n", "RESERVED 1 1\r\nx\r\n"),
		say("a", "touch 1\r\n", "TOUCHED\r\n"),
		say("a", "release 1 3 0\r\n", "RELEASED\r\n"),
		ask("a", "stats-job 1\r\n", 1, fields("state: ready", "pri: 3", "releases: 1", "reserves: 1", "delay: 0")),
		say("a", "release 1 3 0\r\n", "NOT_FOUND\r\n"),
		say("a", "reserve\r\n", "RESERVED 1 1\r\nx\r\n"), // pri 3 now beats pri 5
		say("a", "release 1 9 100\r\n", "RELEASED\r\n"),
		ask("a", "stats-job 1\r\n", 1, fields("state: delayed", "pri: 9", "delay: 100", "releases: 2"),
			between("time-left", 98, 100)),
		say("a", "reserve\r\n", "RESERVED 2 1\r\ny\r\n"),
		say("a", "bury 2 11\r\n", "BURIED\r\n"),
		say("a", "bury 2 11\r\n", "NOT_FOUND\r\n"),
		ask("a", "stats-job 2\r\n", 1, fields("state: buried", "pri: 11", "buries: 1", "time-left: 0")),
		say("a", "peek-buried\r\n", "FOUND 2 1\r\ny\r\n"),
		say("a", "peek-delayed\r\n", "FOUND 1 1\r\nx\r\n"),
		ask("a", "stats\r\n", 1, fields("current-jobs-buried: 1", "current-jobs-delayed: 1",
			"cmd-release: 4", "cmd-bury: 3", "cmd-touch: 2", "current-jobs-urgent: 0")),
	}},
	{name: "jobs/disconnect-releases-to-ready", steps: []step{
		say("a", putCmd(0, 5, 60, "x")+putCmd(0, 0, 60, "y"), "INSERTED 1\r\nINSERTED 2\r\n"),
		say("b", "reserve\r\n", "RESERVED 2 1\r\ny\r\n"),
		say("b", "reserve-job 1\r\n", "RESERVED 1 1\r\nx\r\n"),
		hangup("b"),
		ask("a", "stats-job 1\r\n", 1, fields("state: ready", "reserves: 1", "timeouts: 0", "releases: 0")),
		ask("a", "stats-job 2\r\n", 1, fields("state: ready", "reserves: 1", "timeouts: 0")),
		ask("a", "stats\r\n", 1, fields("current-jobs-ready: 2", "current-jobs-reserved: 0", "job-timeouts: 0",
			"cmd-reserve: 1", "current-connections: 1", "total-connections: 2", "current-workers: 0")),
	}},
	{name: "jobs/quit-behind-a-blocked-reserve", steps: []step{
		say("a", "reserve\r\nquit\r\nlist-tube-used\r\n", ""),
		say("b", putCmd(0, 0, 60, "x"), "INSERTED 1\r\n"),
		expect("a", "RESERVED 1 1\r\nx\r\n<EOF>"),
		ask("b", "stats-job 1\r\n", 1, fields("state: ready", "reserves: 1")),
		ask("b", "stats\r\n", 1, fields("current-connections: 1", "cmd-list-tube-used: 0")),
	}},
	{name: "jobs/quit-releases-to-ready", steps: []step{
		say("a", putCmd(0, 0, 60, "x"), "INSERTED 1\r\n"),
		say("b", "reserve\r\nquit\r\n", "RESERVED 1 1\r\nx\r\n<EOF>"),
		ask("a", "stats-job 1\r\n", 1, fields("state: ready", "reserves: 1")),
	}},
}

// kick and kick-job: buried first, then delayed; the used tube only;
// strtoul's odd grammar.
var kickScripts = []script{
	{name: "kick/buried-first-then-delayed", steps: []step{
		say("a", putCmd(0, 100, 60, "d1")+putCmd(0, 0, 60, "b1")+putCmd(0, 50, 60, "d2")+putCmd(0, 0, 60, "b2"),
			"INSERTED 1\r\nINSERTED 2\r\nINSERTED 3\r\nINSERTED 4\r\n"),
		say("a", "reserve\r\nbury 2 0\r\nreserve\r\nbury 4 0\r\n",
			"RESERVED 2 2\r\nb1\r\nBURIED\r\nRESERVED 4 2\r\nb2\r\nBURIED\r\n"),
		say("a", "kick 1\r\n", "KICKED 1\r\n"),
		say("a", "peek-ready\r\n", "FOUND 2 2\r\nb1\r\n"), // the oldest buried
		say("a", "kick 10\r\n", "KICKED 1\r\n"),           // the buried rest only, fewer than 10
		say("a", "kick 1\r\n", "KICKED 1\r\n"),            // now delayed ones: soonest first
		ask("a", "stats-job 3\r\n", 1, fields("state: ready", "kicks: 1", "time-left: 0")),
		say("a", "kick 10\r\n", "KICKED 1\r\n"),
		say("a", "kick 10\r\n", "KICKED 0\r\n"),
		say("a", "kick 0\r\n", "KICKED 0\r\n"),
		ask("a", "stats\r\n", 1, fields("cmd-kick: 6", "current-jobs-ready: 4")),
	}},
	{name: "kick/acts-on-the-used-tube", steps: []step{
		say("a", "use other\r\n"+putCmd(0, 100, 60, "o"), "USING other\r\nINSERTED 1\r\n"),
		say("b", putCmd(0, 100, 60, "d"), "INSERTED 2\r\n"),
		say("b", "kick 5\r\n", "KICKED 1\r\n"),
		say("b", "peek-ready\r\n", "FOUND 2 1\r\nd\r\n"),
		say("a", "kick 5\r\n", "KICKED 1\r\n"),
		say("a", "kick 5\r\n", "KICKED 0\r\n"),
	}},
	{name: "kick/strtoul-numbers", steps: []step{
		say("a", putCmd(0, 100, 60, "1")+putCmd(0, 100, 60, "2")+putCmd(0, 100, 60, "3")+
			putCmd(0, 100, 60, "4")+putCmd(0, 100, 60, "5")+putCmd(0, 100, 60, "6"),
			"INSERTED 1\r\nINSERTED 2\r\nINSERTED 3\r\nINSERTED 4\r\nINSERTED 5\r\nINSERTED 6\r\n"),
		say("a", "kick 4294967296\r\n", "KICKED 0\r\n"), // 2^32 truncates to 0
		say("a", "kick 1abc\r\n", "KICKED 1\r\n"),       // trailing garbage ignored
		say("a", "kick \t1\r\n", "KICKED 1\r\n"),        // any whitespace
		say("a", "kick +1\r\n", "KICKED 1\r\n"),         // a sign
		say("a", "kick  00001 \r\n", "KICKED 1\r\n"),
		say("a", "kick abc\r\n", "BAD_FORMAT\r\n"),
		say("a", "kick -\r\n", "BAD_FORMAT\r\n"),
		say("a", "kick 18446744073709551616\r\n", "BAD_FORMAT\r\n"),
		say("a", "kick 18446744073709551615\r\n", "KICKED 2\r\n"), // 2^64-1 truncates to 2^32-1: all
		say("a", "kick -1\r\n", "KICKED 0\r\n"),
		say("a", "kick 10\r\n", "KICKED 0\r\n"),
		ask("a", "stats\r\n", 1, fields("cmd-kick: 8", "current-jobs-ready: 6", "current-jobs-delayed: 0")),
	}},
	{name: "kick/minus-one-kicks-all", steps: []step{
		say("a", putCmd(0, 100, 60, "1")+putCmd(0, 100, 60, "2")+putCmd(0, 100, 60, "3"),
			"INSERTED 1\r\nINSERTED 2\r\nINSERTED 3\r\n"),
		say("a", "kick -1\r\n", "KICKED 3\r\n"),
		say("a", putCmd(0, 100, 60, "4")+putCmd(0, 100, 60, "5"), "INSERTED 4\r\nINSERTED 5\r\n"),
		say("a", "kick 10abc\r\n", "KICKED 2\r\n"),
	}},
	{name: "kick/kicked-job-in-a-paused-tube-waits", steps: []step{
		say("a", putCmd(0, 100, 60, "d")+"pause-tube default 100\r\n", "INSERTED 1\r\nPAUSED\r\n"),
		say("b", "reserve-with-timeout 10\r\n", ""),
		say("a", "kick 1\r\n", "KICKED 1\r\n"),
		silent("b"),
		say("a", "pause-tube default 0\r\n", "PAUSED\r\n"),
		expect("b", "RESERVED 1 1\r\nd\r\n"),
		ask("a", "stats-job 1\r\n", 1, fields("state: reserved", "kicks: 1", "reserves: 1")),
	}},
	{name: "kick/kick-job", steps: []step{
		say("a", "use t\r\n"+putCmd(0, 100, 60, "d")+putCmd(0, 0, 60, "b")+putCmd(0, 0, 60, "r"),
			"USING t\r\nINSERTED 1\r\nINSERTED 2\r\nINSERTED 3\r\n"),
		say("a", "reserve-job 2\r\nbury 2 0\r\nreserve-job 3\r\n", "RESERVED 2 1\r\nb\r\nBURIED\r\nRESERVED 3 1\r\nr\r\n"),
		say("b", "kick-job 1\r\n", "KICKED\r\n"), // delayed, another tube
		say("b", "kick-job 2\r\n", "KICKED\r\n"), // buried
		say("b", "kick-job 2\r\n", "NOT_FOUND\r\n"),
		say("b", "kick-job 3\r\n", "NOT_FOUND\r\n"), // reserved
		say("a", "release 3 0 0\r\n", "RELEASED\r\n"),
		say("b", "kick-job 3\r\n", "NOT_FOUND\r\n"), // ready
		say("b", "kick-job 4\r\n", "NOT_FOUND\r\n"),
		ask("b", "stats-job 1\r\n", 1, fields("state: ready", "kicks: 1")),
		ask("b", "stats\r\n", 1, fields("cmd-kick: 0", "current-jobs-ready: 3")),
	}},
}

// peek: the used tube, every state, the order.
var peekScripts = []script{
	{name: "peek/used-tube-not-watched", steps: []step{
		say("a", "use t1\r\n"+putCmd(0, 0, 60, "r")+putCmd(0, 100, 60, "d"), "USING t1\r\nINSERTED 1\r\nINSERTED 2\r\n"),
		say("a", "peek-ready\r\n", "FOUND 1 1\r\nr\r\n"),
		say("a", "peek-delayed\r\n", "FOUND 2 1\r\nd\r\n"),
		say("a", "peek-buried\r\n", "NOT_FOUND\r\n"),
		say("b", "watch t1\r\n", "WATCHING 2\r\n"),
		say("b", "peek-ready\r\n", "NOT_FOUND\r\n"),
		say("b", "peek-delayed\r\n", "NOT_FOUND\r\n"),
		say("b", "peek 1\r\npeek 2\r\n", "FOUND 1 1\r\nr\r\nFOUND 2 1\r\nd\r\n"),
	}},
	{name: "peek/order-and-states", steps: []step{
		say("a", putCmd(5, 0, 60, "a")+putCmd(3, 0, 60, "b")+putCmd(3, 0, 60, "c")+
			putCmd(0, 30, 60, "d")+putCmd(0, 20, 60, "e"),
			"INSERTED 1\r\nINSERTED 2\r\nINSERTED 3\r\nINSERTED 4\r\nINSERTED 5\r\n"),
		say("a", "peek-ready\r\n", "FOUND 2 1\r\nb\r\n"),   // lowest pri, then lowest id
		say("a", "peek-delayed\r\n", "FOUND 5 1\r\ne\r\n"), // soonest deadline
		say("a", "reserve\r\n", "RESERVED 2 1\r\nb\r\n"),
		say("a", "peek 2\r\n", "FOUND 2 1\r\nb\r\n"), // reserved jobs too
		say("a", "peek-ready\r\n", "FOUND 3 1\r\nc\r\n"),
		say("a", "bury 2 0\r\nreserve\r\nbury 3 0\r\n", "BURIED\r\nRESERVED 3 1\r\nc\r\nBURIED\r\n"),
		say("a", "peek-buried\r\n", "FOUND 2 1\r\nb\r\n"), // oldest buried
		say("a", "pause-tube default 100\r\n", "PAUSED\r\n"),
		say("a", "peek-ready\r\n", "FOUND 1 1\r\na\r\n"), // even while paused
		ask("a", "stats\r\n", 1, fields("cmd-peek: 1", "cmd-peek-ready: 3", "cmd-peek-delayed: 1", "cmd-peek-buried: 1")),
	}},
}
