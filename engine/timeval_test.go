package engine

import "golang.org/x/sys/unix"

func timeval(sec, usec int64) unix.Timeval { return unix.NsecToTimeval(sec*1e9 + usec*1e3) }
