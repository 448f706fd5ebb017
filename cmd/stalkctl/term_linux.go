package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// ttyTerm is a terminal on file descriptors: input for the mode, output
// for the size.
type ttyTerm struct{ in, out int }

func newTerminal(in, out *os.File) terminal { return ttyTerm{int(in.Fd()), int(out.Fd())} }

func (t ttyTerm) size() (int, int, bool) {
	ws, err := unix.IoctlGetWinsize(t.out, unix.TIOCGWINSZ)
	if err != nil || ws.Col == 0 || ws.Row == 0 {
		return 0, 0, false
	}
	return int(ws.Col), int(ws.Row), true
}

func (t ttyTerm) raw() (func(), error) {
	old, err := unix.IoctlGetTermios(t.in, unix.TCGETS)
	if err != nil {
		return nil, err
	}
	mode := *old
	mode.Lflag &^= unix.ICANON | unix.ECHO
	mode.Cc[unix.VMIN], mode.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(t.in, unix.TCSETS, &mode); err != nil {
		return nil, err
	}
	return func() { unix.IoctlSetTermios(t.in, unix.TCSETS, old) }, nil
}
