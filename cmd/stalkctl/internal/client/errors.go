package client

import (
	"errors"
	"fmt"
)

// Errors a command can return. A server's error reply is returned wrapped
// (errors.Is finds the sentinel), prefixed with the command that failed.
var (
	// ErrNotFound: no such job or tube, or no job in the asked state.
	ErrNotFound = errors.New("not found")
	// ErrUnknownCommand: the server does not know the command (a plain
	// beanstalkd asked for clear-tube or list-jobs).
	ErrUnknownCommand = errors.New("unknown command")
	// ErrBadFormat: the server could not parse the command.
	ErrBadFormat = errors.New("bad format")
	// ErrNoSpace: the server cannot take the job now (OUT_OF_MEMORY: out of
	// memory or disk, or a stalkd tube at its max_ready): try again later.
	ErrNoSpace = errors.New("the server cannot take the job now (out of memory or disk, or the tube is at its max_ready): try again later")
	// ErrInternal: the server reported an internal error.
	ErrInternal = errors.New("server internal error")
	// ErrDraining: the server is in drain mode and refuses new jobs.
	ErrDraining = errors.New("server is draining (not accepting new jobs)")
	// ErrJobTooBig: the body is larger than the server's max-job-size.
	ErrJobTooBig = errors.New("job too big for the server's max-job-size")
	// ErrExpectedCRLF: the body was not followed by CRLF.
	ErrExpectedCRLF = errors.New("expected CRLF after the job body")
	// ErrBuried: the job was stored but buried (the server could not queue
	// it: out of memory, or a stalkd tube at its max_ready with overflow
	// bury); see BuriedError for its id.
	ErrBuried = errors.New("stored, but buried: the server could not queue it (out of memory, or the tube is at its max_ready)")
	// ErrProtocol: the reply did not follow the protocol.
	ErrProtocol = errors.New("unexpected reply")
)

// replyErrors maps the protocol's error words to the sentinels: the one
// table between wire words and errors.
var replyErrors = map[string]error{
	"NOT_FOUND":       ErrNotFound,
	"UNKNOWN_COMMAND": ErrUnknownCommand,
	"BAD_FORMAT":      ErrBadFormat,
	"OUT_OF_MEMORY":   ErrNoSpace,
	"INTERNAL_ERROR":  ErrInternal,
	"DRAINING":        ErrDraining,
	"JOB_TOO_BIG":     ErrJobTooBig,
	"EXPECTED_CRLF":   ErrExpectedCRLF,
}

// BuriedError is returned by Put when the server answers BURIED <id>.
type BuriedError struct{ ID uint64 }

func (e *BuriedError) Error() string { return fmt.Sprintf("job %d: %v", e.ID, ErrBuried) }

// Unwrap makes errors.Is(err, ErrBuried) true.
func (e *BuriedError) Unwrap() error { return ErrBuried }

// replyError turns an unexpected reply to cmd into an error.
func replyError(cmd string, r Reply) error {
	if err, ok := replyErrors[r.Word]; ok {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	return fmt.Errorf("%s: %w %q", cmd, ErrProtocol, r.Line)
}
