package engine

import (
	"errors"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/jobs"
)

// The two tables at the edge between the wire and the queue: which counter a
// decoded command bumps, and which word answers a queue error.

// notCounted marks ops with no cmd-* counter.
const notCounted = jobs.NumCmds

// cmdOf maps a decoded op to the counter the reference bumps for it. The two
// halves of a put count once, on the line (OpPutHeader); quit is not counted.
var cmdOf = [codec.NumOps]jobs.Cmd{
	codec.OpNone:               notCounted,
	codec.OpPutHeader:          jobs.CmdPut,
	codec.OpPut:                notCounted,
	codec.OpPeek:               jobs.CmdPeek,
	codec.OpPeekReady:          jobs.CmdPeekReady,
	codec.OpPeekDelayed:        jobs.CmdPeekDelayed,
	codec.OpPeekBuried:         jobs.CmdPeekBuried,
	codec.OpReserve:            jobs.CmdReserve,
	codec.OpReserveWithTimeout: jobs.CmdReserveWithTimeout,
	codec.OpReserveJob:         jobs.CmdReserveJob,
	codec.OpDelete:             jobs.CmdDelete,
	codec.OpRelease:            jobs.CmdRelease,
	codec.OpBury:               jobs.CmdBury,
	codec.OpKick:               jobs.CmdKick,
	codec.OpKickJob:            jobs.CmdKickJob,
	codec.OpTouch:              jobs.CmdTouch,
	codec.OpStatsJob:           jobs.CmdStatsJob,
	codec.OpStatsTube:          jobs.CmdStatsTube,
	codec.OpStats:              jobs.CmdStats,
	codec.OpUse:                jobs.CmdUse,
	codec.OpWatch:              jobs.CmdWatch,
	codec.OpIgnore:             jobs.CmdIgnore,
	codec.OpListTubesWatched:   jobs.CmdListTubesWatched,
	codec.OpListTubeUsed:       jobs.CmdListTubeUsed,
	codec.OpListTubes:          jobs.CmdListTubes,
	codec.OpQuit:               notCounted,
	codec.OpPauseTube:          jobs.CmdPauseTube,
	codec.OpClearTube:          jobs.CmdClearTube,
	codec.OpListJobs:           jobs.CmdListJobs,
}

// counterOf returns the counter of op and whether it has one.
func counterOf(op codec.Op) (jobs.Cmd, bool) {
	if int(op) >= len(cmdOf) {
		return notCounted, false
	}
	c := cmdOf[op]
	return c, c != notCounted
}

// errorWords maps each queue error to its reply, CRLF included. Anything
// not listed (a journal failure, a bug) answers INTERNAL_ERROR.
var errorWords = [...]struct {
	err  error
	word string
}{
	{jobs.ErrNotFound, codec.NotFound},
	{jobs.ErrNotIgnored, codec.NotIgnored},
	{jobs.ErrBadTubeName, string(codec.ErrBadFormat) + "\r\n"},
	{jobs.ErrTimedOut, codec.TimedOut},
	{jobs.ErrDeadlineSoon, codec.DeadlineSoon},
	{jobs.ErrDraining, codec.Draining},
	{jobs.ErrNoSpace, codec.OutOfMemory},
	{jobs.ErrJournal, codec.InternalError},
}

// wordFor returns the reply for a queue error.
func wordFor(err error) string {
	for _, e := range errorWords {
		if err == e.err {
			return e.word
		}
	}
	for _, e := range errorWords {
		if errors.Is(err, e.err) {
			return e.word
		}
	}
	return codec.InternalError
}

// commitFailWord is the reply sent instead of a success reply whose journal
// commit failed: OUT_OF_MEMORY for put (as the reference answers a failed
// reservation), INTERNAL_ERROR for anything else.
func commitFailWord(op codec.Op) string {
	if op == codec.OpPut {
		return codec.OutOfMemory
	}
	return codec.InternalError
}
