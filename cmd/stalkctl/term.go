package main

// terminal is the controlling terminal: its size, and a mode in which top
// reads single keys.
type terminal interface {
	// size returns the width and height in cells.
	size() (w, h int, ok bool)
	// raw turns off line buffering and echo (signals stay on, so Ctrl-C
	// still interrupts) and returns the function that restores the mode.
	raw() (restore func(), err error)
}
