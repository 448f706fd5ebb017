package cron

import (
	"fmt"
	"strings"
	"sync"
	"time"

	// The IANA time zone database, embedded: a schedule's tz must resolve
	// on every node that replays or replicates the policy, a bare
	// container without /usr/share/zoneinfo included, or a node would
	// refuse a record its peers accepted. The import sits here, in the one
	// package that resolves zone names, rather than in a main package, so
	// that every program that links the queue (stalkd, an embedding
	// gateway, the tests) validates the same names.
	_ "time/tzdata"
)

// zones caches LoadZone's answers by name: a zone is resolved once per
// process (the standard library reads the host's zoneinfo when it has
// one, else the embedded copy), never when a schedule fires.
var zones sync.Map // string -> *time.Location

// LoadZone resolves an IANA zone name ("" and "UTC" are UTC). "Local" is
// refused: a replicated schedule must not depend on the host's setting.
// Safe for concurrent use.
func LoadZone(name string) (*time.Location, error) {
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	if v, ok := zones.Load(name); ok {
		return v.(*time.Location), nil
	}
	if strings.EqualFold(name, "local") {
		return nil, fmt.Errorf("%q: name the zone (an IANA name such as Europe/Berlin): the host's local zone may differ between nodes", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q (want an IANA name such as Europe/Berlin or America/New_York)", name)
	}
	zones.Store(name, loc)
	return loc, nil
}
