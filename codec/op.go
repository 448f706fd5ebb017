package codec

// Op identifies a decoded command. The zero value, OpNone, marks an event that is not a
// command to execute (an error reply, or nothing at all). Op values are plain integers and
// safe to copy and share.
type Op uint8

// The operations, in the order the reference counts them. OpPutHeader and OpPut are the two
// halves of one put: the line, then the body.
const (
	OpNone      Op = iota
	OpPutHeader    // a put line was accepted: Pri, Delay, TTR, Size, TooBig are set
	OpPut          // the put body is complete: Body is set, or Err == ErrExpectedCRLF
	OpPeek
	OpPeekReady
	OpPeekDelayed
	OpPeekBuried
	OpReserve
	OpReserveWithTimeout
	OpReserveJob
	OpDelete
	OpRelease
	OpBury
	OpKick
	OpKickJob
	OpTouch
	OpStatsJob
	OpStatsTube
	OpStats
	OpUse
	OpWatch
	OpIgnore
	OpListTubesWatched
	OpListTubeUsed
	OpListTubes
	OpQuit
	OpPauseTube
	OpClearTube    // stalkd's own: clear-tube <tube>
	OpListJobs     // stalkd's own: list-jobs <tube> <state> <offset> <count>
	OpStatsCluster // stalkd's own: stats-cluster
	opCount        // number of ops; keep last
)

// NumOps is the number of ops, OpNone included: every Op is below it. Tables indexed by Op
// are sized by it, so that a new op cannot be left out of them silently.
const NumOps = int(opCount)

// unknownName is what the reference's verbose log prints for a line that matches no command.
const unknownName = "<unknown>"

// opPrefix holds the prefix each op is matched by, exactly as the reference's op_names table
// (and so its -V log) spells it: commands with arguments keep their trailing space.
var opPrefix = [opCount]string{
	OpNone:               unknownName,
	OpPutHeader:          "put ",
	OpPut:                "put ",
	OpPeek:               "peek ",
	OpPeekReady:          "peek-ready",
	OpPeekDelayed:        "peek-delayed",
	OpPeekBuried:         "peek-buried",
	OpReserve:            "reserve",
	OpReserveWithTimeout: "reserve-with-timeout ",
	OpReserveJob:         "reserve-job ",
	OpDelete:             "delete ",
	OpRelease:            "release ",
	OpBury:               "bury ",
	OpKick:               "kick ",
	OpKickJob:            "kick-job ",
	OpTouch:              "touch ",
	OpStatsJob:           "stats-job ",
	OpStatsTube:          "stats-tube ",
	OpStats:              "stats",
	OpUse:                "use ",
	OpWatch:              "watch ",
	OpIgnore:             "ignore ",
	OpListTubesWatched:   "list-tubes-watched",
	OpListTubeUsed:       "list-tube-used",
	OpListTubes:          "list-tubes",
	OpQuit:               "quit",
	OpPauseTube:          "pause-tube",
	OpClearTube:          "clear-tube ",
	OpListJobs:           "list-jobs ",
	OpStatsCluster:       "stats-cluster",
}

// opName is opPrefix without the trailing space.
var opName [opCount]string

func init() {
	for i, p := range opPrefix {
		if n := len(p); n > 0 && p[n-1] == ' ' {
			p = p[:n-1]
		}
		opName[i] = p
	}
}

// String returns the protocol name of the command: "put" (for both put ops), "peek-ready",
// "pause-tube", ... OpNone and out-of-range values give "<unknown>".
func (o Op) String() string {
	if o < opCount {
		return opName[o]
	}
	return unknownName
}

// Prefix returns the prefix the command is matched by, with its trailing space where it has
// one ("put ", "peek-ready", "pause-tube"). This is the NAME in the reference's -V log line
// "<FD command NAME". OpNone and out-of-range values give "<unknown>".
func (o Op) Prefix() string {
	if o < opCount {
		return opPrefix[o]
	}
	return unknownName
}
