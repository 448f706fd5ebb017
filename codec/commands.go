package codec

import (
	"cmp"
	"slices"
)

// Spec declares one command: everything the protocol says about it. A server adds only its
// handler (package engine keeps one per Op, and a test checks that every op has one).
type Spec struct {
	Op Op
	// Prefix is what a line must start with, spelled as the reference's op_names table (and
	// so its -V log) spells it: commands that take arguments keep their trailing space,
	// except pause-tube.
	Prefix string
	// Stat is the command's cmd-* key in the stats document; "" if it is not reported.
	Stat string
	// Counted: the command is counted once its line parses (reported or not). quit and the
	// put body are not.
	Counted bool
	// Ours marks stalkd's own commands: the reference answers UNKNOWN_COMMAND.
	Ours bool
	// Usage is the command's syntax and what it does, for documentation.
	Usage string
	// Sample is a well-formed line of the command, CRLF left out, for tests and
	// examples (a put's line announces a 1-byte body). Sent after a put, every
	// sample but quit's is answered at once.
	Sample string
	// Replies are the first words of the replies the command may get
	// besides GenericReplies: for the reference's commands, what
	// beanstalkd 1.12 sends to it (replies.go declares them).
	Replies []string

	form argForm
}

// commands is the table of commands, indexed by Op. The order of its rows is the order of
// the stats document's cmd-* keys. Matching order is derived: among prefixes that can both
// match a line (one is a prefix of the other), the longer is tried first, which is exactly
// the reference's strncmp order ("reserve-with-timeout " and "reserve-job " before
// "reserve", "stats-job " and "stats-tube " before "stats", "list-tubes-watched" before
// "list-tubes").
var commands = [NumOps]Spec{
	OpNone:               {Prefix: unknownName, form: argNever},
	OpPutHeader:          {Prefix: "put ", Sample: "put 0 0 10 1", Stat: "cmd-put", Counted: true, form: argPut, Usage: "put <pri> <delay> <ttr> <bytes>\\r\\n<data>\\r\\n: INSERTED <id>"},
	OpPut:                {Prefix: "put ", form: argNever},
	OpPeek:               {Prefix: "peek ", Sample: "peek 1", Stat: "cmd-peek", Counted: true, form: argID, Usage: "peek <id>: FOUND <id> <bytes>"},
	OpPeekReady:          {Prefix: "peek-ready", Sample: "peek-ready", Stat: "cmd-peek-ready", Counted: true, form: argNone, Usage: "peek-ready: the next ready job of the used tube"},
	OpPeekDelayed:        {Prefix: "peek-delayed", Sample: "peek-delayed", Stat: "cmd-peek-delayed", Counted: true, form: argNone, Usage: "peek-delayed: the delayed job of the used tube due first"},
	OpPeekBuried:         {Prefix: "peek-buried", Sample: "peek-buried", Stat: "cmd-peek-buried", Counted: true, form: argNone, Usage: "peek-buried: the oldest buried job of the used tube"},
	OpReserve:            {Prefix: "reserve", Sample: "reserve", Stat: "cmd-reserve", Counted: true, form: argNone, Usage: "reserve: RESERVED <id> <bytes>, waiting as long as it takes"},
	OpReserveWithTimeout: {Prefix: "reserve-with-timeout ", Sample: "reserve-with-timeout 0", Stat: "cmd-reserve-with-timeout", Counted: true, form: argTimeout, Usage: "reserve-with-timeout <seconds>: RESERVED or TIMED_OUT; negative waits forever"},
	OpDelete:             {Prefix: "delete ", Sample: "delete 9", Stat: "cmd-delete", Counted: true, form: argID, Usage: "delete <id>: DELETED"},
	OpRelease:            {Prefix: "release ", Sample: "release 9 0 0", Stat: "cmd-release", Counted: true, form: argRelease, Usage: "release <id> <pri> <delay>: RELEASED"},
	OpUse:                {Prefix: "use ", Sample: "use default", Stat: "cmd-use", Counted: true, form: argName, Usage: "use <tube>: USING <tube>"},
	OpWatch:              {Prefix: "watch ", Sample: "watch default", Stat: "cmd-watch", Counted: true, form: argName, Usage: "watch <tube>: WATCHING <count>"},
	OpIgnore:             {Prefix: "ignore ", Sample: "ignore x", Stat: "cmd-ignore", Counted: true, form: argName, Usage: "ignore <tube>: WATCHING <count>"},
	OpBury:               {Prefix: "bury ", Sample: "bury 9 0", Stat: "cmd-bury", Counted: true, form: argBury, Usage: "bury <id> <pri>: BURIED"},
	OpKick:               {Prefix: "kick ", Sample: "kick 1", Stat: "cmd-kick", Counted: true, form: argKick, Usage: "kick <bound>: KICKED <count>"},
	OpTouch:              {Prefix: "touch ", Sample: "touch 9", Stat: "cmd-touch", Counted: true, form: argID, Usage: "touch <id>: TOUCHED"},
	OpStats:              {Prefix: "stats", Sample: "stats", Stat: "cmd-stats", Counted: true, form: argNone, Usage: "stats: OK <bytes> and the server's YAML document"},
	OpStatsJob:           {Prefix: "stats-job ", Sample: "stats-job 9", Stat: "cmd-stats-job", Counted: true, form: argID, Usage: "stats-job <id>: OK <bytes> and the job's YAML document"},
	OpStatsTube:          {Prefix: "stats-tube ", Sample: "stats-tube x", Stat: "cmd-stats-tube", Counted: true, form: argName, Usage: "stats-tube <tube>: OK <bytes> and the tube's YAML document"},
	OpListTubes:          {Prefix: "list-tubes", Sample: "list-tubes", Stat: "cmd-list-tubes", Counted: true, form: argNone, Usage: "list-tubes: OK <bytes> and a YAML list"},
	OpListTubeUsed:       {Prefix: "list-tube-used", Sample: "list-tube-used", Stat: "cmd-list-tube-used", Counted: true, form: argNone, Usage: "list-tube-used: USING <tube>"},
	OpListTubesWatched:   {Prefix: "list-tubes-watched", Sample: "list-tubes-watched", Stat: "cmd-list-tubes-watched", Counted: true, form: argNone, Usage: "list-tubes-watched: OK <bytes> and a YAML list"},
	OpPauseTube:          {Prefix: "pause-tube", Sample: "pause-tube x 0", Stat: "cmd-pause-tube", Counted: true, form: argPause, Usage: "pause-tube <tube> <delay>: PAUSED"},
	OpReserveJob:         {Prefix: "reserve-job ", Sample: "reserve-job 9", Counted: true, form: argID, Usage: "reserve-job <id>: RESERVED <id> <bytes>"},
	OpKickJob:            {Prefix: "kick-job ", Sample: "kick-job 9", Counted: true, form: argID, Usage: "kick-job <id>: KICKED"},
	OpQuit:               {Prefix: "quit", Sample: "quit", form: argAny, Usage: "quit: closes the connection"},
	OpClearTube:          {Prefix: "clear-tube ", Sample: "clear-tube x", Counted: true, Ours: true, form: argName, Usage: "clear-tube <tube>: CLEARED <count>; deletes every ready, delayed and buried job"},
	OpAuth:               {Prefix: "auth ", Sample: "auth a-token-of-16-bytes", Ours: true, form: argToken, Usage: "auth <token>: AUTHENTICATED or UNAUTHORIZED; required first when the server has tokens"},
	OpListJobs:           {Prefix: "list-jobs ", Sample: "list-jobs x ready 0 1", Counted: true, Ours: true, form: argListJobs, Usage: "list-jobs <tube> <ready|delayed|buried|reserved> <offset> <count>: OK <bytes> and a YAML list of ids"},
	OpStatsCluster:       {Prefix: "stats-cluster", Sample: "stats-cluster", Counted: true, Ours: true, form: argNone, Usage: "stats-cluster: OK <bytes> and the node's view of its raft cluster (state standalone without one)"},
}

// Commands returns the declarations of every command, OpNone and the put body excluded, in
// the stats document's order. The slice is the caller's.
func Commands() []Spec {
	var out []Spec
	for _, s := range commands {
		if s.form != argNever {
			out = append(out, s)
		}
	}
	return out
}

// opName is each prefix without its trailing space.
var opName [NumOps]string

// verbs lists the matchable commands in matching order: longest prefix first.
var verbs []verb

type verb struct {
	prefix string
	op     Op
	form   argForm
}

func init() {
	for op := range commands {
		s := &commands[op]
		s.Op = Op(op)
		p := s.Prefix
		if n := len(p); n > 0 && p[n-1] == ' ' {
			p = p[:n-1]
		}
		opName[op] = p
		if s.form != argNever {
			verbs = append(verbs, verb{s.Prefix, Op(op), s.form})
		}
	}
	slices.SortStableFunc(verbs, func(a, b verb) int { return cmp.Compare(len(b.prefix), len(a.prefix)) })
	for _, v := range verbs {
		byFirst[v.prefix[0]] = append(byFirst[v.prefix[0]], v)
	}
}
