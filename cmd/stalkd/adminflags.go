package main

import "strconv"

// adminFlags are the admin listener's flags (long ones: the reference has
// none, so they cannot clash with its letters).
type adminFlags struct {
	addr     string // --admin ADDR: "" leaves the listener off
	maxTubes int    // --metrics-max-tubes N: 0 means the default
}

const adminUsage = ` --admin ADDR            serve metrics, health checks, the JSON API and the
                         dashboard over HTTP on ADDR (host:port or unix:/path;
                         off by default). Mutating API calls are accepted only
                         on a loopback address or a Unix socket
 --metrics-max-tubes N   give per-tube metrics to at most N tubes, the largest
                         by job count (default 1000; -1 for no cap)
`

func init() {
	longFlags["admin"] = func(o *options, v string) error {
		if v == "" {
			return usageError("--admin needs an address")
		}
		o.admin.addr = v
		return nil
	}
	longFlags["metrics-max-tubes"] = func(o *options, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < -1 || n == 0 {
			return usageError("invalid --metrics-max-tubes: " + v)
		}
		o.admin.maxTubes = n
		return nil
	}
}
