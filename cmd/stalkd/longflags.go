package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// stalkd's own flags are long ("--name VALUE" or "--name=VALUE"), so they
// can never clash with the reference's single letters, which parseArgs
// reads exactly as the reference does.

// netFlags are the network limits (--max-connections, --idle-timeout).
type netFlags struct {
	// maxConns is --max-connections: -1 (not given) derives a cap from the
	// open-file limit; 0 means no cap.
	maxConns    int
	idleTimeout time.Duration // --idle-timeout; 0 means never
}

// longFlag applies the value of one long flag to o.
type longFlag func(o *options, v string) error

// addStringFlags adds long flags that each set one string option (named by
// dst) and refuse an empty value.
func addStringFlags(flags map[string]func(o *options) *string) {
	for name, dst := range flags {
		longFlags[name] = func(o *options, v string) error {
			if v == "" {
				return usageError("empty value for --" + name)
			}
			*dst(o) = v
			return nil
		}
	}
}

// longFlags are the long flags, by name. Helpers that add flags add a
// line here.
var longFlags = map[string]longFlag{
	"max-connections": func(o *options, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return usageError("invalid number of connections: " + v)
		}
		o.net.maxConns = n
		return nil
	},
	"idle-timeout": func(o *options, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return usageError("invalid duration: " + v)
		}
		o.net.idleTimeout = d
		return nil
	},
}

// longUsage documents the long flags, after the reference's help text.
const longUsage = ` --max-connections N
          close new connections past N open ones (default: derived from
          the open-file limit; 0 means no cap)
 --idle-timeout DURATION
          close a connection that sends nothing for DURATION (for example
          90s or 10m), except while it waits in reserve (default: never)
`

// parseLong applies the long flag args[i] ("--name" or "--name=value") and
// returns the index of the next argument.
func parseLong(o *options, args []string, i int) (int, error) {
	arg := args[i]
	name, v, hasValue := strings.Cut(arg[2:], "=")
	f, ok := longFlags[name]
	if !ok {
		return i, usageError("unknown flag: " + arg)
	}
	i++
	if !hasValue {
		if i == len(args) {
			return i, usageError(fmt.Sprintf("flag requires an argument: --%s", name))
		}
		v = args[i]
		i++
	}
	return i, f(o, v)
}
