package codec

// The reply words each command may get: for the reference's commands, the
// words beanstalkd 1.12 can send to that command (from the protocol text
// and the reference's observed behaviour, REFERENCE.md §2.8); for
// stalkd's own commands (Spec.Ours), stalkd's words, since the reference
// answers them UNKNOWN_COMMAND. It is the house rule in data: a client's
// own command never gets a reply word that 1.12 does not send for it,
// whatever tube policy or mode is in force (engine/COMPATIBILITY.md). A
// test in package engine sends every command under every kind of policy
// over TCP and checks each reply's first word against Spec.Replies plus
// GenericReplies.

// GenericReplies are the words any command may get: the reference sends
// each of them for any command (a server error, a line it cannot parse).
var GenericReplies = []string{"OUT_OF_MEMORY", "INTERNAL_ERROR", "BAD_FORMAT", "UNKNOWN_COMMAND"}

// replyWords is the table Spec.Replies is filled from, indexed by Op. A put
// is declared on its line (OpPutHeader), which the client sends; the body
// (OpPut) has no reply of its own. quit has none: it closes the connection.
var replyWords = [NumOps][]string{
	// BURIED <id>: stored, but could not be queued (the reference when a
	// heap cannot grow; stalkd's max_ready overflow bury).
	OpPutHeader:          {"INSERTED", "BURIED", "EXPECTED_CRLF", "JOB_TOO_BIG", "DRAINING"},
	OpPeek:               {"FOUND", "NOT_FOUND"},
	OpPeekReady:          {"FOUND", "NOT_FOUND"},
	OpPeekDelayed:        {"FOUND", "NOT_FOUND"},
	OpPeekBuried:         {"FOUND", "NOT_FOUND"},
	OpReserve:            {"RESERVED", "DEADLINE_SOON", "TIMED_OUT"}, // TIMED_OUT: a half-closed client
	OpReserveWithTimeout: {"RESERVED", "DEADLINE_SOON", "TIMED_OUT"},
	OpDelete:             {"DELETED", "NOT_FOUND"},
	OpRelease:            {"RELEASED", "BURIED", "NOT_FOUND"}, // BURIED: out of memory
	OpUse:                {"USING"},
	OpWatch:              {"WATCHING"},
	OpIgnore:             {"WATCHING", "NOT_IGNORED"},
	OpBury:               {"BURIED", "NOT_FOUND"},
	OpKick:               {"KICKED"},
	OpTouch:              {"TOUCHED", "NOT_FOUND"},
	OpStats:              {"OK"},
	OpStatsJob:           {"OK", "NOT_FOUND"},
	OpStatsTube:          {"OK", "NOT_FOUND"},
	OpListTubes:          {"OK"},
	OpListTubeUsed:       {"USING"},
	OpListTubesWatched:   {"OK"},
	OpPauseTube:          {"PAUSED", "NOT_FOUND"},
	OpReserveJob:         {"RESERVED", "NOT_FOUND"},
	OpKickJob:            {"KICKED", "NOT_FOUND"},
	OpQuit:               {},
	// stalkd's own commands: its words.
	OpClearTube:    {"CLEARED", "NOT_FOUND"},
	OpAuth:         {"AUTHENTICATED", "UNAUTHORIZED"},
	OpListJobs:     {"OK", "NOT_FOUND"},
	OpStatsCluster: {"OK"},
}

func init() {
	for op := range commands {
		commands[op].Replies = replyWords[op]
	}
}

// ReplyAllowed reports whether word (a reply's first word) may answer a
// command of op: one of its Spec.Replies or GenericReplies.
func ReplyAllowed(op Op, word string) bool {
	for _, w := range commands[op].Replies {
		if w == word {
			return true
		}
	}
	for _, w := range GenericReplies {
		if w == word {
			return true
		}
	}
	return false
}
