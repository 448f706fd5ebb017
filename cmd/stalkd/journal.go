package main

import (
	"errors"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/embed"
	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal"
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
	size := o.SegmentSize
	if o.Dir == "" {
		return journal{
			stats: func() engine.BinlogStats { return engine.BinlogStats{MaxSize: size} },
			close: func() error { return nil },
		}, nil
	}
	l, err := openLog(o, size, log)
	switch {
	case errors.Is(err, wal.ErrLocked):
		return journal{}, &exitError{exitWALDir, err}
	case errors.Is(err, wal.ErrCorrupt):
		return journal{}, fmt.Errorf("%w (start with -S to move the damaged files aside and keep what is readable)", err)
	case err != nil:
		return journal{}, err
	}
	return journal{
		j:      l,
		replay: l.Replay,
		stats:  func() engine.BinlogStats { return embed.BinlogStats(l, size) },
		close:  l.Close,
	}, nil
}

// openLog imports the binlog beanstalkd left in the -b directory, if it
// holds one and no log of stalkd's yet (wal.ImportBinlog: once, logged),
// then opens the write-ahead log.
func openLog(o journalFlags, size int64, log zerolog.Logger) (*wal.Log, error) {
	if _, err := wal.ImportBinlog(o.Dir, wal.ImportOptions{SegmentSize: wal.ClampSegmentSize(size), Logger: log}); err != nil {
		return nil, err
	}
	return wal.Open(o.Dir, wal.Options{
		SyncInterval: o.SyncInterval,
		NoSync:       o.NoSync,
		SegmentSize:  wal.ClampSegmentSize(size),
		Salvage:      o.Salvage,
		Logger:       log,
	})
}
