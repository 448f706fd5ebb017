// Command stalkd is a beanstalk work-queue server: a drop-in replacement for
// beanstalkd, with the same flags, defaults and exit codes.
//
//	stalkd [-l ADDR] [-p PORT] [-z BYTES] [-b DIR [-f MS | -F] [-s BYTES]] [-u USER] [-V...]
//
// SIGUSR1 puts it in drain mode (puts are refused from then on); SIGTERM and
// SIGINT stop it gracefully: it stops accepting, answers what is in flight,
// closes the journal with a final sync and exits 0.
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
	warn := func(msg string) { fmt.Fprintf(stderr, "%s: %s\n", prog, msg) }
	o, act, err := parseArgs(args, warn)
	if err != nil {
		warn(err.Error())
		usage(stderr, prog)
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
	log := newLogger(stderr, o.verbose)
	if err := run(o, log); err != nil {
		log.Error().Err(err).Msg("stalkd stops")
		var ee *exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		return exitFailure
	}
	return 0
}
