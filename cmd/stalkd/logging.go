package main

import (
	"io"
	"os"

	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"
)

// newLogger logs to w: human-readable when w is a terminal, JSON lines
// otherwise. The level follows -V: info, then debug (accepts and closes),
// then trace (every command and reply).
func newLogger(w io.Writer, verbose int) zerolog.Logger {
	if f, ok := w.(*os.File); ok && isTerminal(f) {
		w = zerolog.ConsoleWriter{Out: f, TimeFormat: "15:04:05.000"}
	}
	level := zerolog.InfoLevel
	switch {
	case verbose >= 2:
		level = zerolog.TraceLevel
	case verbose == 1:
		level = zerolog.DebugLevel
	}
	return zerolog.New(w).Level(level).With().Timestamp().Logger()
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
