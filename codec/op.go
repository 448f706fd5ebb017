package codec

// Op identifies a decoded command. The zero value, OpNone, marks an event that is not a
// command to execute (an error reply, or nothing at all). Op values are plain integers and
// safe to copy and share; they are this package's own numbering, never stored or sent.
type Op uint8

// The operations: first the ones the stats document reports, in its order, then the ones it
// does not. OpPutHeader and OpPut are the two halves of one put: the line, then the body.
// Everything else about an op is declared once, in the commands table (commands.go).
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
	OpDelete
	OpRelease
	OpUse
	OpWatch
	OpIgnore
	OpBury
	OpKick
	OpTouch
	OpStats
	OpStatsJob
	OpStatsTube
	OpListTubes
	OpListTubeUsed
	OpListTubesWatched
	OpPauseTube
	OpReserveJob
	OpKickJob
	OpQuit
	OpClearTube    // stalkd's own: clear-tube <tube>
	OpListJobs     // stalkd's own: list-jobs <tube> <state> <offset> <count>
	OpAuth         // stalkd's own: auth <token>
	OpStatsCluster // stalkd's own: stats-cluster
	opCount        // number of ops; keep last
)

// NumOps is the number of ops, OpNone included: every Op is below it. Tables indexed by Op
// are sized by it, so that a new op cannot be left out of them silently.
const NumOps = int(opCount)

// unknownName is what the reference's verbose log prints for a line that matches no command.
const unknownName = "<unknown>"

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
		return commands[o].Prefix
	}
	return unknownName
}

// Spec returns the declaration of the command (the zero Spec for out-of-range values).
func (o Op) Spec() Spec {
	if o < opCount {
		return commands[o]
	}
	return Spec{}
}
