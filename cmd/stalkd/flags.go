package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/node"
	"github.com/stalkd/stalkd/wal"
)

// options are the parsed command line.
type options struct {
	addr    string // -l: "" for every interface, or "unix:/path"
	port    string // -p: a number or a service name, resolved at bind time
	maxJob  uint64 // -z, already clamped to engine.MaxJobSizeLimit
	user    string // -u
	verbose int    // -V count
	journal journalFlags
	net     netFlags // stalkd's own long flags (longflags.go)
	tls     tlsFlags // --tls and its files (tlsflags.go)

	authTokenFile string       // --auth-token-file (authflags.go)
	admin         adminFlags   // --admin, --metrics-max-tubes (adminflags.go)
	cluster       clusterFlags // --raft-* (clusterflags.go)
	policies      *policyFlag  // --policies FILE, read and checked (policies.go); nil: none
}

// journalFlags are the persistence flags: -b (Dir; "" keeps everything in
// memory), -f (SyncInterval), -F (NoSync; a later -f turns syncing back
// on), -s (SegmentSize) and -S (Salvage: start on a log damaged in the
// middle, keeping what is readable), handed to the node as they are.
type journalFlags = node.Journal

// action is what the command line asks for.
type action int

const (
	actRun action = iota
	actHelp
	actVersion
)

// usageError is a bad command line: the message, then the usage, exit 5.
type usageError string

func (e usageError) Error() string { return string(e) }

func defaultOptions() options {
	return options{
		port:   engine.DefaultPort,
		maxJob: engine.DefaultMaxJobSize,
		net:    netFlags{maxConns: -1},
		journal: journalFlags{
			SyncInterval: wal.DefaultSyncInterval,
			SegmentSize:  wal.DefaultSegmentSize,
		},
	}
}

// parseArgs reads the command line exactly as the reference's optparse
// does: flags may be bundled ("-VFVu kr"), a value may be attached or be
// the next argument, flags run in order (so "-v" or "-h" ends parsing where
// it stands), and the first argument that is not a flag is an error. warn
// receives the warnings of flags that are accepted anyway (-c, -n, a -z
// above the maximum).
func parseArgs(args []string, warn func(string)) (options, action, error) {
	o := defaultOptions()
	for i := 0; i < len(args); {
		arg := args[i]
		if len(arg) > 2 && strings.HasPrefix(arg, "--") {
			var err error
			if i, err = parseLong(&o, args, i); err != nil {
				return o, actRun, err
			}
			continue
		}
		i++
		if len(arg) < 2 || arg[0] != '-' {
			return o, actRun, usageError("unknown argument: " + arg)
		}
		for j := 1; j < len(arg); {
			c := arg[j]
			j++
			// value is the rest of this argument, else the next one.
			value := func() (string, error) {
				if j < len(arg) {
					v := arg[j:]
					j = len(arg)
					return v, nil
				}
				if i < len(args) {
					i++
					return args[i-1], nil
				}
				return "", usageError("flag requires an argument: -" + string(c))
			}
			act, err := o.apply(c, value, warn)
			if err == errUnknownFlag {
				return o, actRun, usageError("unknown flag: " + arg[j-2:])
			}
			if err != nil || act != actRun {
				return o, act, err
			}
		}
	}
	return o, actRun, o.check()
}

var errUnknownFlag = usageError("unknown flag")

// apply applies one flag letter.
func (o *options) apply(c byte, value func() (string, error), warn func(string)) (action, error) {
	switch c {
	case 'h':
		return actHelp, nil
	case 'v':
		return actVersion, nil
	case 'V':
		o.verbose++
	case 'F':
		o.journal.NoSync = true
	case 'S':
		o.journal.Salvage = true
	case 'c', 'n':
		warn("-" + string(c) + " flag was removed. binlog is always compacted.")
	case 'p', 'l', 'u', 'b':
		v, err := value()
		if err != nil {
			return actRun, err
		}
		switch c {
		case 'p':
			o.port = v
		case 'l':
			o.addr = v
		case 'u':
			o.user = v
		case 'b':
			o.journal.Dir = v
		}
	case 'z', 's', 'f':
		return actRun, o.applySize(c, value, warn)
	default:
		return actRun, errUnknownFlag
	}
	return actRun, nil
}

// applySize applies one of the flags that take a size.
func (o *options) applySize(c byte, value func() (string, error), warn func(string)) error {
	v, err := value()
	if err != nil {
		return err
	}
	n, ok := parseSize(v)
	if !ok {
		return usageError("invalid size: " + v)
	}
	switch c {
	case 'z':
		if n > engine.MaxJobSizeLimit {
			warn(fmt.Sprintf("maximum job size was set to %d", engine.MaxJobSizeLimit))
			n = engine.MaxJobSizeLimit
		}
		o.maxJob = n
	case 's':
		o.journal.SegmentSize = int64(min(n, math.MaxInt64))
	case 'f':
		o.journal.SyncInterval = time.Duration(min(n, math.MaxInt64/uint64(time.Millisecond))) * time.Millisecond
		o.journal.NoSync = false
	}
	return nil
}

// parseSize reads a size the way sscanf(s, "%zu%c") does when it must match
// exactly one item: leading white space, an optional sign (a minus negates
// modulo 2^64, so "-1" is the largest value), decimal digits (an overflow
// saturates), and nothing after them.
func parseSize(s string) (uint64, bool) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	var n uint64
	over := false
	for ; i < len(s) && '0' <= s[i] && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if n > (math.MaxUint64-d)/10 {
			over = true
		}
		n = n*10 + d
	}
	if i == start || i != len(s) {
		return 0, false
	}
	switch {
	case over:
		return math.MaxUint64, true
	case neg:
		return -n, true
	}
	return n, true
}

func isSpace(b byte) bool { return b == ' ' || ('\t' <= b && b <= '\r') }

// usage prints the help text, as the reference does, to w. The defaults it
// names are the constants the flags take them from.
func usage(w io.Writer, prog string) {
	fmt.Fprintf(w, `Use: %s [OPTIONS]

Options:
 -b DIR   write-ahead log directory
 -f MS    fsync at most once every MS milliseconds (default is %dms);
          use -f0 for "always fsync"
 -F       never fsync
 -S       salvage a damaged write-ahead log: move the damaged files aside
          and start with what is readable
 -l ADDR  listen on address (default is all interfaces, IPv4 and IPv6);
          use -l unix:/path for a Unix socket
 -p PORT  listen on port (default is %s)
 -u USER  become user and group
 -z BYTES set the maximum job size in bytes (default is %d);
          max allowed is %d bytes
 -s BYTES set the size of each write-ahead log file (default is %d)
 -v       show version information
 -V       increase verbosity
 -h       show this help
`, prog, wal.DefaultSyncInterval.Milliseconds(), engine.DefaultPort,
		engine.DefaultMaxJobSize, engine.MaxJobSizeLimit, wal.DefaultSegmentSize)
	fmt.Fprint(w, longUsage+tlsUsage+authUsage+adminUsage+clusterUsage+nodeTLSUsage+policiesUsage)
}
