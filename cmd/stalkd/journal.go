package main

import (
	"errors"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/jobs"
)

// journal is what the persistence flags produce: the queue's journal (nil
// keeps every job in memory), how to load the jobs it holds into a fresh
// queue, the binlog figures of the stats document, and how to close it (a
// final sync) at shutdown.
type journal struct {
	j      jobs.Journal
	replay func(*jobs.Queue) error
	stats  func() engine.BinlogStats
	close  func() error
}

// openJournal turns the -b, -f, -F and -s flags into a journal. It runs
// after the socket is bound and privileges are dropped, before the queue
// exists. Without -b it returns an in-memory setup whose stats report the
// -s value, as the reference does.
func openJournal(o journalFlags, log zerolog.Logger) (journal, error) {
	if o.Dir != "" {
		return journal{}, errors.New("persistence (-b) is not available in this build")
	}
	size := o.SegmentSize
	return journal{
		stats: func() engine.BinlogStats { return engine.BinlogStats{MaxSize: size} },
		close: func() error { return nil },
	}, nil
}
