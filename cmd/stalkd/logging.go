package main

import (
	"io"
	"os"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"
)

// The log is one stream on stderr for the whole program (zerolog): JSON
// lines, or a human-readable console format when stderr is a terminal.
// Every line has "time" (RFC 3339, microseconds), "level", "message"
// (lowercase, no package prefix) and "component" (cmd, engine, wal, ...);
// field names are snake_case with units in their names (took_ms, a float of
// milliseconds; size_bytes); errors are in "error". The level is the only
// verbosity control: info, -V debug (accepts and closes), -VV trace (every
// command line, without put bodies, and every reply line).

// timeFormat is the "time" field: RFC 3339 with a fixed-width microsecond
// fraction, so lines sort and align, and so the console writer (which
// parses this field back) has the sub-second part to show.
const timeFormat = "2006-01-02T15:04:05.000000Z07:00"

// consoleTimeFormat is the time column of the console format.
const consoleTimeFormat = "15:04:05.000"

func init() {
	// zerolog's time format is process-wide; stalkd is the process.
	zerolog.TimeFieldFormat = timeFormat
}

// logFormat is how log lines are written.
type logFormat int

const (
	formatAuto    logFormat = iota // console on a terminal, else JSON
	formatJSON                     // one JSON object per line
	formatConsole                  // human-readable
)

// newLogger returns the program's root logger, writing to w at the level
// -V asks for. It carries no component: each part gets one from
// componentLogger.
func newLogger(w io.Writer, verbose int, format logFormat) zerolog.Logger {
	f, ok := w.(*os.File)
	tty := ok && isTerminal(f)
	if format == formatAuto {
		format = formatJSON
		if tty {
			format = formatConsole
		}
	}
	if format == formatConsole {
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: consoleTimeFormat, NoColor: !tty}
	}
	return zerolog.New(w).Level(levelOf(verbose)).With().Timestamp().Logger()
}

// levelOf maps the -V count to a level: info, then debug, then trace.
func levelOf(verbose int) zerolog.Level {
	switch {
	case verbose >= 2:
		return zerolog.TraceLevel
	case verbose == 1:
		return zerolog.DebugLevel
	}
	return zerolog.InfoLevel
}

// componentLogger returns root with the component field set. The program
// hands each library (engine, wal) a logger made here, so every line names
// its part exactly once.
func componentLogger(root zerolog.Logger, component string) zerolog.Logger {
	return root.With().Str("component", component).Logger()
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
