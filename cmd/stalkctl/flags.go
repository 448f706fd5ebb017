package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"
)

// errHelp asks for the usage text (-h anywhere).
var errHelp = errors.New("help requested")

// invocation is a parsed command line.
type invocation struct {
	addr string
	json bool
	// adminURL and adminTokenFile: the admin API, for the cluster and
	// policy commands (--admin, else $STALKD_ADMIN, else defaultAdmin;
	// --admin-token-file, else the token in $STALKD_ADMIN_TOKEN).
	// adminGiven: --admin or $STALKD_ADMIN named it (cluster then asks the
	// admin API rather than the protocol).
	adminURL, adminTokenFile string
	adminGiven               bool
	cmd                      *command // nil when no command was named (-h alone)
	args                     []string // the command's positional arguments

	// Command flags; each command registers the ones it takes.
	tube     string
	pri      uint
	delay    uint
	ttr      uint
	offset   uint64
	count    uint64
	timeout  time.Duration
	interval time.Duration
	once     bool
	policy   policyArgs // policy set's -f and field flags (policy.go)

	// binlog export's and migrate's flags.
	to, fromDir        string
	fileSize           int64
	from               string
	stateFile, mapFile string
	moves              moveArgs // redrive's flags (redrive.go)
}

// parse reads the command line: global flags, the command, then its
// arguments and flags in any order (flags may follow arguments; "--" ends
// the flags). The address comes from -a, else $STALKD_ADDR, else
// defaultAddr; the admin API's from --admin, else $STALKD_ADMIN, else
// defaultAdmin.
func parse(args []string, getenv func(string) string) (*invocation, error) {
	inv := &invocation{addr: getenv("STALKD_ADDR"), adminURL: getenv("STALKD_ADMIN")}
	if inv.addr == "" {
		inv.addr = defaultAddr
	}
	global := newFlagSet("stalkctl", inv)
	if err := global.Parse(args); err != nil {
		return inv, flagError(err)
	}
	rest := global.Args()
	if len(rest) == 0 {
		return inv, fmt.Errorf("no command given")
	}
	inv.cmd = lookup(rest[0])
	if inv.cmd == nil {
		return inv, fmt.Errorf("unknown command %q", rest[0])
	}
	fs := newFlagSet(inv.cmd.name, inv)
	if inv.cmd.flags != nil {
		inv.cmd.flags(fs, inv)
	}
	pos, err := parseInterleaved(fs, rest[1:])
	if err != nil {
		return inv, err
	}
	if len(pos) < inv.cmd.minArgs || (inv.cmd.maxArgs >= 0 && len(pos) > inv.cmd.maxArgs) {
		return inv, fmt.Errorf("usage: stalkctl %s %s", inv.cmd.name, inv.cmd.synopsis)
	}
	inv.args = pos
	if inv.adminGiven = inv.adminURL != ""; !inv.adminGiven {
		inv.adminURL = defaultAdmin
	}
	if inv.addr == "" {
		return inv, fmt.Errorf("-a: empty address")
	}
	if check := inv.cmd.check; check != nil {
		if err := check(inv); err != nil {
			return inv, err
		}
	}
	return inv, nil
}

// newFlagSet returns a flag set with the global flags, which every command
// also accepts after its name.
func newFlagSet(name string, inv *invocation) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&inv.addr, "a", inv.addr, "server address")
	fs.BoolVar(&inv.json, "json", inv.json, "print JSON")
	fs.StringVar(&inv.adminURL, "admin", inv.adminURL, "admin API base URL")
	fs.StringVar(&inv.adminTokenFile, "admin-token-file", inv.adminTokenFile, "file holding the admin API's bearer token")
	return fs
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments. Everything after a "--" is an argument, and so is a
// lone "-" (stdin for put).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var tail []string
	for i, s := range args {
		if s == "--" {
			args, tail = args[:i], args[i+1:]
			break
		}
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, flagError(err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return append(pos, tail...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// flagError turns -h into errHelp and keeps other flag errors.
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return errHelp
	}
	return err
}
