//go:build !linux

package main

import "os"

// isTerminal is false off Linux: top prints frames in turn and drain plain
// progress lines.
func isTerminal(*os.File) bool { return false }

func newTerminal(in, out *os.File) terminal { return nil }
