package difftest

import "strconv"

// The keys of the three documents, in the reference's order.
var (
	statsKeys = []string{
		"current-jobs-urgent", "current-jobs-ready", "current-jobs-reserved", "current-jobs-delayed",
		"current-jobs-buried", "cmd-put", "cmd-peek", "cmd-peek-ready", "cmd-peek-delayed", "cmd-peek-buried",
		"cmd-reserve", "cmd-reserve-with-timeout", "cmd-delete", "cmd-release", "cmd-use", "cmd-watch",
		"cmd-ignore", "cmd-bury", "cmd-kick", "cmd-touch", "cmd-stats", "cmd-stats-job", "cmd-stats-tube",
		"cmd-list-tubes", "cmd-list-tube-used", "cmd-list-tubes-watched", "cmd-pause-tube", "job-timeouts",
		"total-jobs", "max-job-size", "current-tubes", "current-connections", "current-producers",
		"current-workers", "current-waiting", "total-connections", "pid", "version", "rusage-utime",
		"rusage-stime", "uptime", "binlog-oldest-index", "binlog-current-index", "binlog-records-migrated",
		"binlog-records-written", "binlog-max-size", "draining", "id", "hostname", "os", "platform",
	}
	statsTubeKeys = []string{
		"name", "current-jobs-urgent", "current-jobs-ready", "current-jobs-reserved", "current-jobs-delayed",
		"current-jobs-buried", "total-jobs", "current-using", "current-watching", "current-waiting",
		"cmd-delete", "cmd-pause-tube", "pause", "pause-time-left",
	}
	statsJobKeys = []string{
		"id", "tube", "state", "pri", "age", "delay", "ttr", "time-left", "file", "reserves", "timeouts",
		"releases", "buries", "kicks",
	}
)

// Stats: the three documents, their keys, and what each counter counts.
var statsScripts = []script{
	{name: "stats/fresh-server", steps: []step{
		ask("a", "stats\r\n", 1, keys(statsKeys...), fields(
			"current-jobs-urgent: 0", "cmd-put: 0", "cmd-stats: 1", "job-timeouts: 0", "total-jobs: 0",
			"max-job-size: 65535", "current-tubes: 1", "current-connections: 1", "current-producers: 0",
			"current-workers: 0", "current-waiting: 0", "total-connections: 1", "binlog-oldest-index: 0",
			"binlog-current-index: 0", "binlog-records-migrated: 0", "binlog-records-written: 0",
			"binlog-max-size: 10485760", "draining: false"), between("uptime", 0, 5)),
		ask("a", "stats-tube default\r\n", 1, keys(statsTubeKeys...)),
		say("a", "stats-tube default\r\n", okDoc("---\nname: default\ncurrent-jobs-urgent: 0\n"+
			"current-jobs-ready: 0\ncurrent-jobs-reserved: 0\ncurrent-jobs-delayed: 0\ncurrent-jobs-buried: 0\n"+
			"total-jobs: 0\ncurrent-using: 1\ncurrent-watching: 1\ncurrent-waiting: 0\ncmd-delete: 0\n"+
			"cmd-pause-tube: 0\npause: 0\npause-time-left: 0\n")),
		ask("a", "stats\r\n", 1, fields("cmd-stats: 2", "cmd-stats-tube: 2")),
	}},
	{name: "stats/stats-job-document", steps: []step{
		say("a", "use jobs\r\n"+putCmd(1023, 0, 0, "x"), "USING jobs\r\nINSERTED 1\r\n"),
		say("a", "stats-job 1\r\n", okDoc("---\nid: 1\ntube: jobs\nstate: ready\npri: 1023\nage: 0\n"+
			"delay: 0\nttr: 1\ntime-left: 0\nfile: 0\nreserves: 0\ntimeouts: 0\nreleases: 0\nburies: 0\nkicks: 0\n")),
		ask("a", "stats-job 1\r\n", 1, keys(statsJobKeys...)),
		say("a", putCmd(7, 10, 30, "y"), "INSERTED 2\r\n"),
		ask("a", "stats-job 2\r\n", 1, fields("state: delayed", "pri: 7", "delay: 10", "ttr: 30"),
			between("time-left", 8, 10), between("age", 0, 2)),
		say("a", "stats-job 3\r\n", "NOT_FOUND\r\n"),
		say("a", "stats-job x\r\n", "BAD_FORMAT\r\n"),
		ask("a", "stats\r\n", 1, fields("cmd-stats-job: 4")),
	}},
	// Tube names are bare wherever they appear, byte for byte as 1.12
	// prints them, even names a YAML parser would type as a number, a
	// boolean or null: clients that split lines by hand (go-beanstalk,
	// pheanstalk, greenstalk's lists, the Java and C++ clients) keep quotes
	// as part of the name (issue 19).
	{name: "stats/tube-names-are-bare", steps: tubeNamesAreBare()},
	{name: "stats/urgent-is-pri-below-1024", steps: []step{
		say("a", putCmd(1023, 0, 60, "u")+putCmd(1024, 0, 60, "n")+putCmd(0, 50, 60, "d"),
			"INSERTED 1\r\nINSERTED 2\r\nINSERTED 3\r\n"),
		ask("a", "stats\r\n", 1, fields("current-jobs-urgent: 1", "current-jobs-ready: 2", "current-jobs-delayed: 1")),
		ask("a", "stats-tube default\r\n", 1, fields("current-jobs-urgent: 1", "total-jobs: 3")),
		say("a", "reserve\r\n", "RESERVED 1 1\r\nu\r\n"),
		ask("a", "stats\r\n", 1, fields("current-jobs-urgent: 0", "current-jobs-reserved: 1")),
	}},
	{name: "stats/what-counts-as-a-command", steps: []step{
		say("a", "use -x\r\nuse\r\nuse  x\r\nuse x\r\n", "BAD_FORMAT\r\nUNKNOWN_COMMAND\r\nBAD_FORMAT\r\nUSING x\r\n"),
		say("a", "put 0 0 60 1 x\r\n", "BAD_FORMAT\r\n"), // four numbers parsed: counted
		say("a", "put 0 0 60\r\n", "BAD_FORMAT\r\n"),     // not counted
		say("a", "put\t0 0 60 1\r\n", "UNKNOWN_COMMAND\r\n"),
		say("a", "stats-job x\r\nstats-job 9\r\n", "BAD_FORMAT\r\nNOT_FOUND\r\n"),
		say("a", "pause-tube -bad 5\r\npause-tube x\r\n", "BAD_FORMAT\r\nBAD_FORMAT\r\n"),
		say("a", "peek x\r\npeek 9\r\n", "BAD_FORMAT\r\nNOT_FOUND\r\n"),
		say("a", "reserve-job 9\r\nkick-job 9\r\n", "NOT_FOUND\r\nNOT_FOUND\r\n"),
		say("a", "watch -x\r\nignore -x\r\n", "BAD_FORMAT\r\nBAD_FORMAT\r\n"),
		say("a", "delete x\r\nrelease x 0 0\r\nbury x 0\r\ntouch x\r\n",
			"BAD_FORMAT\r\nBAD_FORMAT\r\nBAD_FORMAT\r\nBAD_FORMAT\r\n"),
		say("a", "kick x\r\nstats-tube -x\r\nstats x\r\n", "BAD_FORMAT\r\nBAD_FORMAT\r\nBAD_FORMAT\r\n"),
		ask("a", "stats\r\n", 1, fields("cmd-use: 1", "cmd-put: 1", "cmd-stats-job: 1", "cmd-peek: 1",
			"cmd-watch: 0", "cmd-ignore: 0", "cmd-delete: 0", "cmd-kick: 0", "cmd-stats-tube: 0",
			"cmd-stats: 1", "cmd-pause-tube: 1", "current-workers: 0")),
	}},
	{name: "stats/too-big-put-is-counted", maxJob: 5, steps: []step{
		say("a", putCmd(0, 0, 60, "toolong"), "JOB_TOO_BIG\r\n"),
		ask("a", "stats\r\n", 1, fields("cmd-put: 1", "total-jobs: 0", "current-producers: 0", "max-job-size: 5")),
	}},
	{name: "stats/connections-producers-workers-waiting", steps: []step{
		say("p", putCmd(0, 0, 60, "x"), "INSERTED 1\r\n"),
		say("w", "reserve-with-timeout 0\r\n", "RESERVED 1 1\r\nx\r\n"),
		say("x", "reserve\r\n", ""),
		say("y", "use other\r\n", "USING other\r\n"),
		ask("s", "stats\r\n", 1, fields("current-connections: 5", "total-connections: 5", "current-producers: 1",
			"current-workers: 2", "current-waiting: 1", "current-jobs-reserved: 1", "cmd-reserve: 1",
			"cmd-reserve-with-timeout: 1")),
		ask("s", "stats-tube default\r\n", 1, fields("current-using: 4", "current-watching: 5", "current-waiting: 1",
			"current-jobs-reserved: 1")),
		say("p", putCmd(0, 0, 60, "z"), "INSERTED 2\r\n"),
		expect("x", "RESERVED 2 1\r\nz\r\n"),
		hangup("y"),
		ask("s", "stats\r\n", 1, fields("current-connections: 4", "total-connections: 5", "current-waiting: 0",
			"current-jobs-reserved: 2", "current-tubes: 1")),
	}},
	{name: "stats/a-waiter-counts-in-every-watched-tube", steps: []step{
		say("a", "watch t1\r\nwatch t2\r\nreserve\r\n", "WATCHING 2\r\nWATCHING 3\r\n"),
		ask("b", "stats-tube t1\r\n", 1, fields("current-waiting: 1", "current-watching: 1", "current-using: 0")),
		ask("b", "stats-tube default\r\n", 1, fields("current-waiting: 1", "current-watching: 2", "current-using: 2")),
		ask("b", "stats\r\n", 1, fields("current-waiting: 1", "current-tubes: 3")),
	}},
	{name: "stats/pause-tube-zero", steps: []step{
		say("a", "pause-tube default 0\r\n", "PAUSED\r\n"),
		ask("a", "stats-tube default\r\n", 1, fields("pause: 0", "pause-time-left: 0", "cmd-pause-tube: 1")),
		say("a", putCmd(0, 0, 60, "x"), "INSERTED 1\r\n"),
		say("a", "reserve-with-timeout 1\r\n", "RESERVED 1 1\r\nx\r\n").within(2e9),
	}},
	{name: "stats/pause-tube-time-left", steps: []step{
		say("a", "pause-tube default 30\r\n", "PAUSED\r\n"),
		ask("a", "stats-tube default\r\n", 1, fields("pause: 30"), between("pause-time-left", 28, 30)),
		say("a", "pause-tube default 5\r\n", "PAUSED\r\n"), // overwrites
		ask("a", "stats-tube default\r\n", 1, fields("pause: 5", "cmd-pause-tube: 2"), between("pause-time-left", 3, 5)),
	}},
	{name: "stats/tube-counters-die-with-the-tube", steps: []step{
		say("a", "use t\r\n"+putCmd(0, 0, 60, "x")+"delete 1\r\npause-tube t 100\r\n",
			"USING t\r\nINSERTED 1\r\nDELETED\r\nPAUSED\r\n"),
		ask("a", "stats-tube t\r\n", 1, fields("cmd-delete: 1", "cmd-pause-tube: 1", "total-jobs: 1", "pause: 100")),
		say("a", "use default\r\nuse t\r\n", "USING default\r\nUSING t\r\n"),
		ask("a", "stats-tube t\r\n", 1, fields("cmd-delete: 0", "cmd-pause-tube: 0", "total-jobs: 0", "pause: 0")),
	}},
}

// bareNames are tube names YAML would read as something other than a string.
var bareNames = []string{"0.5", "123", "007", "yes", "null", "a-b", "foo.bar"}

func tubeNamesAreBare() []step {
	var st []step
	for i, n := range bareNames {
		id := strconv.Itoa(i + 1)
		st = append(st,
			say("a", "use "+n+"\r\n"+putCmd(0, 0, 60, "x"), "USING "+n+"\r\nINSERTED "+id+"\r\n"),
			say("a", "watch "+n+"\r\n", "WATCHING "+strconv.Itoa(i+2)+"\r\n"),
			ask("a", "stats-job "+id+"\r\n", 1, lines("tube: "+n)),
			say("a", "stats-tube "+n+"\r\n", okDoc("---\nname: "+n+"\ncurrent-jobs-urgent: 1\n"+
				"current-jobs-ready: 1\ncurrent-jobs-reserved: 0\ncurrent-jobs-delayed: 0\ncurrent-jobs-buried: 0\n"+
				"total-jobs: 1\ncurrent-using: 1\ncurrent-watching: 1\ncurrent-waiting: 0\ncmd-delete: 0\n"+
				"cmd-pause-tube: 0\npause: 0\npause-time-left: 0\n")))
	}
	all := append([]string{"default"}, bareNames...)
	return append(st,
		say("a", "list-tubes-watched\r\n", okList(all...)),
		say("a", "list-tubes\r\n", okList(all...)),
		say("a", "use plain_name\r\nlist-tube-used\r\n", "USING plain_name\r\nUSING plain_name\r\n"))
}
