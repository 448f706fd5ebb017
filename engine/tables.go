package engine

import (
	"errors"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/jobs"
)

// The table at the edge between the wire and the queue: which word answers
// a queue error. (What each command is, is declared in codec's command
// table; what it does, in handlers.)

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
	// max_ready with overflow reject: the protocol's "try again later"
	// (a policy never puts a new word on the wire; COMPATIBILITY.md).
	{jobs.ErrQueueFull, codec.OutOfMemory},
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
