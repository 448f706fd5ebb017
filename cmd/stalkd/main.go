// Command stalkd is a beanstalk work-queue server: a drop-in replacement for
// beanstalkd, with the same flags, defaults and exit codes.
//
//	stalkd [-l ADDR] [-p PORT] [-z BYTES] [-b DIR [-f MS | -F] [-s BYTES]] [-u USER] [-V...]
//
// SIGUSR1 puts it in drain mode (puts are refused from then on); SIGHUP
// reloads the TLS certificates and the --policies file (run.go, node.Reload);
// SIGTERM and SIGINT stop it gracefully: it stops accepting, answers what is
// in flight, closes the journal with a final sync and exits 0.
//
// It logs one stream to stderr: JSON lines, or a console format on a
// terminal. -V (debug) adds accepts and closes, -VV (trace) every command
// line and reply line; the logger's level is the only verbosity setting.
// Every line has time (RFC 3339, microseconds), level, message and
// component (cmd, engine, wal); see logging.go for the field conventions.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/stalkd/stalkd/engine"
)

// Exit codes, as the reference's.
const (
	exitUsage   = 5
	exitWALDir  = 10  // -b names no directory
	exitSocket  = 111 // the socket could not be bound
	exitFailure = 1   // journal, replay or server failure
)

func main() {
	os.Exit(realMain(os.Args, os.Stdout, os.Stderr))
}

// realMain runs the command and returns its exit code.
func realMain(args []string, stdout, stderr io.Writer) int {
	prog := "stalkd"
	if len(args) > 0 {
		prog = filepath.Base(args[0])
		args = args[1:]
	}
	// Warnings of flags accepted anyway go to the log once it exists, or
	// to stderr as plain text when the program does not run.
	var warnings []string
	o, act, err := parseArgs(args, func(msg string) { warnings = append(warnings, msg) })
	plain := func(msg string) { fmt.Fprintf(stderr, "%s: %s\n", prog, msg) }
	if err != nil || act != actRun {
		for _, w := range warnings {
			plain(w)
		}
	}
	if err != nil {
		plain(err.Error())
		var ce configError
		if !errors.As(err, &ce) { // a bad file is not a bad command line
			usage(stderr, prog)
		}
		return exitUsage
	}
	switch act {
	case actHelp:
		usage(stderr, prog)
		return 0
	case actVersion:
		fmt.Fprintf(stdout, "stalkd %s (beanstalk protocol %s)\n", engine.Version, engine.ProtocolVersion)
		return 0
	}
	root := newLogger(stderr, o.verbose, formatAuto)
	log := componentLogger(root, "cmd")
	for _, w := range warnings {
		log.Warn().Msg(w)
	}
	if err := run(o, root); err != nil {
		log.Error().Err(err).Msg("stalkd stops")
		var ee *exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		return exitFailure
	}
	return 0
}
