package main

import (
	"github.com/rs/zerolog"
	"golang.org/x/sys/unix"
)

// maxConns is the engine's connection cap: --max-connections if given,
// else the one derived from the open-file limit.
func maxConns(flag, derived int) int {
	if flag >= 0 {
		return flag
	}
	return derived
}

// raiseFileLimit lifts the soft limit on open files to the hard one and
// returns a connection cap that leaves headroom below it. gnet stops its
// whole engine when accept fails for lack of descriptors, so the server
// must refuse connections before that can happen.
func raiseFileLimit(log zerolog.Logger) int {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	if rl.Cur < rl.Max {
		want := rl
		want.Cur = rl.Max
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &want); err == nil {
			rl = want
		} else {
			log.Debug().Err(err).Msg("cannot raise the open-file limit")
		}
	}
	if rl.Cur > 1<<24 || rl.Cur == unix.RLIM_INFINITY {
		rl.Cur = 1 << 24
	}
	n := int(rl.Cur)
	return max(n-n/8-64, 16)
}
