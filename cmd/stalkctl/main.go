// Command stalkctl is the operator's command line for stalkd (and any
// beanstalkd): it shows stats and tubes, peeks, puts, kicks, deletes,
// pauses, clears and lists jobs, waits for a tube to drain, shows a live
// view of the tubes (top), shows and changes a cluster's membership
// and tube policies through a node's admin API (cluster, add-voter,
// remove-server, policy), and moves jobs between beanstalkd and stalkd
// (binlog inspect and export, migrate).
//
//	stalkctl [-a HOST:PORT | -a unix:/path] [--json] COMMAND [ARGS] [FLAGS]
//
// It speaks the beanstalk protocol through its own small client
// (internal/client), so it never imports the server's packages (but the
// file formats: wal to read a stopped stalkd's log, wal/binlog to read
// and write beanstalkd's binlog); clear and
// list use stalkd's additive clear-tube and list-jobs commands, and say so
// clearly against a plain beanstalkd. Run "stalkctl -h" for the commands
// and the exit codes.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/stalkd/stalkd/cmd/stalkctl/internal/client"
)

// Exit codes, documented in the usage text.
const (
	exitOK          = 0
	exitFailure     = 1 // the server refused the command, or a protocol error
	exitUsage       = 2 // bad command line
	exitConnect     = 3 // cannot connect, or the connection broke
	exitNotFound    = 4 // no such job or tube (NOT_FOUND)
	exitUnsupported = 5 // the server does not know the command (not stalkd)
	exitTimeout     = 6 // drain --timeout passed before the tube drained
)

// defaultAddr is used when neither -a nor $STALKD_ADDR is given.
const defaultAddr = "127.0.0.1:11300"

// defaultAdmin is the admin API used when neither --admin nor
// $STALKD_ADMIN is given (stalkd's documented --admin address).
const defaultAdmin = "127.0.0.1:11380"

// app is one run of the program: its streams, environment and terminal.
// Tests build one with buffers; main builds it from the process.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	// stdoutTTY and stderrTTY say whether the stream is a terminal (ANSI
	// redraw, progress bar) rather than a pipe or file (plain lines).
	stdoutTTY, stderrTTY bool
	// term, if non-nil, is the controlling terminal on stdin: its size and
	// a raw mode for top's keys.
	term terminal
	// keys, if non-nil, is where top reads q from (stdin when it is a
	// terminal; a test's pipe). Nil: top quits only on a signal.
	keys io.Reader
	// dialTimeout and ioTimeout bound connecting and each command.
	dialTimeout, ioTimeout time.Duration
}

func main() {
	a := &app{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		getenv:      os.Getenv,
		stdoutTTY:   isTerminal(os.Stdout),
		stderrTTY:   isTerminal(os.Stderr),
		dialTimeout: 5 * time.Second, ioTimeout: 30 * time.Second,
	}
	if isTerminal(os.Stdin) {
		a.term, a.keys = newTerminal(os.Stdin, os.Stdout), os.Stdin
	}
	// SIGHUP too (the terminal went away): top must leave it as it found it.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	code := a.main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// main runs one command line and returns the exit code.
func (a *app) main(ctx context.Context, args []string) int {
	inv, err := parse(args, a.getenv)
	if errors.Is(err, errHelp) {
		usage(a.stdout, inv)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "stalkctl: %v\n", err)
		fmt.Fprintf(a.stderr, "run 'stalkctl -h' for usage\n")
		return exitUsage
	}
	if err := a.run(ctx, inv); err != nil {
		fmt.Fprintf(a.stderr, "stalkctl: %v\n", err)
		return exitCode(err)
	}
	return exitOK
}

// run connects and executes the parsed command.
func (a *app) run(ctx context.Context, inv *invocation) error {
	if inv.cmd.admin != nil && (inv.cmd.run == nil || inv.adminGiven) {
		return a.runAdmin(ctx, inv)
	}
	var c *client.Conn
	if inv.cmd.offline == nil || !inv.cmd.offline(inv) {
		dctx, cancel := context.WithTimeout(ctx, a.dialTimeout)
		var err error
		c, err = client.Dial(dctx, inv.addr)
		cancel()
		if err != nil {
			return &connectError{addr: inv.addr, err: err}
		}
		defer c.Close()
		c.Timeout = a.ioTimeout
	}
	res, err := inv.cmd.run(ctx, a, c, inv)
	if err != nil {
		return describe(inv, err)
	}
	if res == nil {
		return nil
	}
	if inv.json {
		return writeJSON(a.stdout, res.json())
	}
	res.print(a.stdout)
	return nil
}

// result is what a command prints: as text for a person, or as JSON.
type result interface {
	print(w io.Writer)
	json() any
}

// connectError: the server could not be reached.
type connectError struct {
	addr string
	err  error
	hint string // what to set; "" means -a or $STALKD_ADDR
}

func (e *connectError) Error() string {
	cause := e.err
	if u := errors.Unwrap(cause); u != nil {
		cause = u // drop net.OpError's repetition of the address
	}
	hint := e.hint
	if hint == "" {
		hint = "-a or $STALKD_ADDR"
	}
	return fmt.Sprintf("cannot connect to %s: %v (is the server running? set %s)", e.addr, cause, hint)
}

func (e *connectError) Unwrap() error { return e.err }

// errDrainTimeout: drain gave up at --timeout.
var errDrainTimeout = errors.New("timed out")

// exitCode maps an error to the documented exit code.
func exitCode(err error) int {
	var ce *connectError
	var ue *usageError
	var ne interface{ Timeout() bool }
	switch {
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &ce):
		return exitConnect
	case errors.Is(err, client.ErrNotFound):
		return exitNotFound
	case errors.Is(err, client.ErrUnknownCommand):
		return exitUnsupported
	case errors.Is(err, errDrainTimeout):
		return exitTimeout
	case errors.Is(err, errNotLeader):
		return exitNotLeader
	case errors.As(err, &ne), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE):
		return exitConnect
	}
	return exitFailure
}

// usageError is a bad argument found while running a command.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}
