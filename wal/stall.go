package wal

import (
	"fmt"
	"time"
)

// stallAfter is how long an fsync runs before Stall reports it.
const stallAfter = time.Second

// Stall implements jobs.Staller: while an fsync of the job log has been
// running for more than a second, it says so ("" otherwise), so that the
// admin listener's /readyz can say why changes wait. Safe for concurrent
// use; no locks, no I/O.
func (l *Log) Stall() string {
	since := l.metrics.syncSince.Load()
	if since == 0 {
		return ""
	}
	if d := l.hook.now().Sub(time.Unix(0, since)); d > stallAfter {
		return fmt.Sprintf("an fsync of the job log has taken %.1fs so far: changes wait for it", d.Seconds())
	}
	return ""
}
