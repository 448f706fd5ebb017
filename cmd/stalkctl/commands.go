package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"

	"github.com/stalkd/stalkd/cmd/stalkctl/internal/client"
)

// command is one stalkctl command: its name, usage, the flags it takes and
// what it does.
type command struct {
	name     string
	synopsis string // arguments and flags, for usage lines
	help     string // one line
	minArgs  int
	maxArgs  int // -1: no limit
	flags    func(fs *flag.FlagSet, inv *invocation)
	// check validates the arguments before stalkctl connects, so a typo is a
	// usage error (exit 2) even when the server is down; nil: nothing to check.
	check func(inv *invocation) error
	run   func(ctx context.Context, a *app, c *client.Conn, inv *invocation) (result, error)
	// admin runs the command through the admin HTTP API instead: always
	// when run is nil, else when --admin (or $STALKD_ADMIN) is given.
	admin func(ctx context.Context, a *app, h *adminClient, inv *invocation) (result, error)
	// offline, if it says so for the invocation, runs run without a
	// connection (c is nil): the command reads or writes files only.
	offline func(inv *invocation) bool
	// wire is the protocol command, named when the server does not know it.
	wire string
	// notFound says what NOT_FOUND means for this command.
	notFound func(inv *invocation) string
}

// commands is the command table, in the order usage lists them.
var commands []*command

func init() {
	commands = []*command{
		{name: "stats", help: "server statistics", maxArgs: 0, run: runStats},
		{name: "tubes", help: "every tube with its job counts, as a table", maxArgs: 0, run: runTubes},
		{name: "stats-tube", synopsis: "TUBE", help: "one tube's statistics", minArgs: 1, maxArgs: 1,
			run: runStatsTube, notFound: tubeNotFound},
		{name: "peek", synopsis: "ID|ready|delayed|buried [-t TUBE]",
			help:    "show a job (by id, or the next ready/delayed/buried one of a tube) and its stats",
			minArgs: 1, maxArgs: 1, flags: tubeFlag, check: checkPeek, run: runPeek, notFound: peekNotFound},
		{name: "put", synopsis: "[BODY|-] [-t TUBE] [--pri N] [--delay S] [--ttr S]",
			help:    "insert a job; the body is the argument, or stdin when absent or -",
			maxArgs: 1, flags: putFlags, check: checkPut, run: runPut},
		{name: "kick", synopsis: "N [-t TUBE]", help: "kick up to N buried (else delayed) jobs of a tube",
			minArgs: 1, maxArgs: 1, flags: tubeFlag, check: checkCount, run: runKick},
		{name: "kick-job", synopsis: "ID", help: "kick one buried or delayed job", minArgs: 1, maxArgs: 1,
			check: checkID, run: runKickJob, notFound: func(inv *invocation) string {
				return fmt.Sprintf("job %s not found, or not buried or delayed", inv.args[0])
			}},
		{name: "delete", synopsis: "ID", help: "delete a job", minArgs: 1, maxArgs: 1,
			check: checkID, run: runDelete, notFound: jobNotFound},
		{name: "pause", synopsis: "TUBE SECONDS", help: "pause a tube's reservations (0 resumes)",
			minArgs: 2, maxArgs: 2, check: checkPause, run: runPause, notFound: tubeNotFound},
		{name: "clear", synopsis: "TUBE", help: "delete every ready, delayed and buried job of a tube (stalkd)",
			minArgs: 1, maxArgs: 1, wire: "clear-tube", run: runClear, notFound: tubeNotFound},
		{name: "list", synopsis: "TUBE ready|delayed|buried|reserved [--offset N] [--count N]",
			help: "list job ids of a tube in one state (stalkd; --count 0 = all)", minArgs: 2, maxArgs: 2,
			flags: listFlags, check: checkList, wire: "list-jobs", run: runList, notFound: tubeNotFound},
		{name: "drain", synopsis: "TUBE [--timeout D] [--interval D]",
			help: "wait until a tube has no ready, delayed or reserved job (polls every 1s), with progress", minArgs: 1, maxArgs: 1,
			flags: drainFlags, check: checkInterval, run: runDrain, notFound: tubeNotFound},
		{name: "top", synopsis: "[--interval D] [--once]",
			help: "live view of the tubes with rates, every 1s (q or Ctrl-C quits; --once prints one frame)", maxArgs: 0,
			flags: topFlags, check: checkInterval, run: runTop},
	}
	commands = append(commands, clusterCommands...)
	commands = append(commands, policyCommand, redriveCommand, moveCommand, binlogCommand, migrateCommand)
}

// The argument checks of the command table.

func checkPeek(inv *invocation) error {
	if _, err := parseID(inv.args[0]); err != nil && !peekStates[inv.args[0]] {
		return usageErrorf("peek: want a job id or ready, delayed or buried, not %q", inv.args[0])
	}
	return nil
}

func checkCount(inv *invocation) error { _, err := parseCount(inv.args[0]); return err }
func checkID(inv *invocation) error    { _, err := parseID(inv.args[0]); return err }
func checkPause(inv *invocation) error { _, err := parseSeconds(inv.args[1]); return err }

func checkList(inv *invocation) error {
	if !listStates[inv.args[1]] {
		return usageErrorf("list: state must be ready, delayed, buried or reserved, not %q", inv.args[1])
	}
	return nil
}

func checkPut(inv *invocation) error {
	if inv.pri > math.MaxUint32 || inv.delay > math.MaxUint32 || inv.ttr > math.MaxUint32 {
		return usageErrorf("put: --pri, --delay and --ttr must fit in 32 bits")
	}
	return nil
}

// peekStates are the states peek takes instead of an id.
var peekStates = map[string]bool{"ready": true, "delayed": true, "buried": true}

func checkInterval(inv *invocation) error {
	if inv.interval <= 0 {
		return usageErrorf("%s: --interval must be positive", inv.cmd.name)
	}
	return nil
}

// parseCount parses kick's job count (a u32 on the wire).
func parseCount(s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, usageErrorf("kick: %q is not a count (0 to 4294967295)", s)
	}
	return n, nil
}

// parseSeconds parses pause's seconds (a u32 on the wire).
func parseSeconds(s string) (uint32, error) {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, usageErrorf("pause: %q is not a number of seconds", s)
	}
	return uint32(n), nil
}

// lookup finds a command by name.
func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func tubeFlag(fs *flag.FlagSet, inv *invocation) {
	fs.StringVar(&inv.tube, "t", "default", "tube")
	fs.StringVar(&inv.tube, "tube", "default", "tube")
}

func putFlags(fs *flag.FlagSet, inv *invocation) {
	tubeFlag(fs, inv)
	fs.UintVar(&inv.pri, "pri", 1024, "priority (0 is most urgent)")
	fs.UintVar(&inv.delay, "delay", 0, "delay in seconds")
	fs.UintVar(&inv.ttr, "ttr", 60, "time to run in seconds")
}

func listFlags(fs *flag.FlagSet, inv *invocation) {
	fs.Uint64Var(&inv.offset, "offset", 0, "skip this many ids")
	fs.Uint64Var(&inv.count, "count", 0, "list at most this many ids (0: all)")
}

func drainFlags(fs *flag.FlagSet, inv *invocation) {
	fs.DurationVar(&inv.timeout, "timeout", 0, "give up after this long (0: wait forever)")
	fs.DurationVar(&inv.interval, "interval", defaultInterval, "how often to poll")
}

func topFlags(fs *flag.FlagSet, inv *invocation) {
	fs.DurationVar(&inv.interval, "interval", defaultInterval, "refresh interval")
	fs.BoolVar(&inv.once, "once", false, "print one frame (two samples an interval apart) and exit")
}

func tubeNotFound(inv *invocation) string { return fmt.Sprintf("tube %q not found", inv.args[0]) }
func jobNotFound(inv *invocation) string  { return fmt.Sprintf("job %s not found", inv.args[0]) }

func peekNotFound(inv *invocation) string {
	if _, err := parseID(inv.args[0]); err == nil {
		return jobNotFound(inv)
	}
	return fmt.Sprintf("no %s job in tube %q", inv.args[0], inv.tube)
}

// described is an error with an operator's message, keeping the cause for
// the exit code.
type described struct {
	msg string
	err error
}

func (e *described) Error() string { return e.msg }
func (e *described) Unwrap() error { return e.err }

// describe rewrites the server's error words into what they mean for the
// command that got them.
func describe(inv *invocation, err error) error {
	switch {
	case errors.Is(err, client.ErrNotFound) && inv.cmd.notFound != nil:
		return &described{msg: inv.cmd.notFound(inv), err: err}
	case errors.Is(err, client.ErrUnknownCommand):
		wire := inv.cmd.wire
		if wire == "" {
			wire = inv.cmd.name
		}
		return &described{err: err, msg: fmt.Sprintf(
			"the server at %s does not know the %s command: %q needs stalkd (a plain beanstalkd has no such command)",
			inv.addr, wire, inv.cmd.name)}
	}
	return err
}
