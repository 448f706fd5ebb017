package wal

import (
	"errors"
	"fmt"
	"time"

	"github.com/stalkd/stalkd/jobs"
)

// Replay hands every live job Open found to q (in order of first appearance
// in the log; reserved jobs come back ready), makes q's ids continue above
// every id the log ever held, and starts the sync and compaction
// goroutines. q must have been created with this Log as its journal and
// not be serving yet. Call it once; Close the Log if it fails.
func (l *Log) Replay(q *jobs.Queue) error {
	return l.replay(q)
}

func (l *Log) replay(q queue) error {
	l.mu.Lock()
	if l.started || l.closing {
		l.mu.Unlock()
		return errors.New("wal: Replay called twice or after Close")
	}
	l.started = true
	img := l.img
	l.img = nil
	l.mu.Unlock()
	next := l.lease.next.Load()

	start := time.Now()
	n := 0
	var err error
	img.each(func(r *jobs.Record) {
		if err != nil {
			return
		}
		rec := *r
		rec.Kind = jobs.RecPut
		if rec.State == jobs.Reserved {
			rec.State = jobs.Ready
		}
		if rerr := q.Restore(rec); rerr != nil {
			err = fmt.Errorf("wal: restore job %d: %w", rec.ID, rerr)
		}
		n++
	})
	if err != nil {
		return err
	}
	q.EnsureNextID(next)
	np, err := restorePolicies(q, img)
	if err != nil {
		return err
	}
	l.log.Info().Int("jobs", n).Int("policies", np).Uint64("next_id", next).Int("orphan_records", img.orphans).
		Float64("took_ms", msSince(start)).Msg("jobs restored")

	l.mu.Lock()
	l.running = true
	l.mu.Unlock()
	go l.runSyncer()
	go l.runCompactor(q)
	signal(l.wake)
	return nil
}

// Close stops compaction, writes and fsyncs everything appended, closes the
// segments and unlocks the directory. Appends after Close fail with
// ErrJournal. It returns the journal's failure, if it failed.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closing {
		l.mu.Unlock()
		return ErrClosed
	}
	l.closing = true
	running := l.running
	l.cond.Broadcast()
	l.mu.Unlock()
	if running {
		close(l.stopCompactor)
		<-l.compactorDone
		close(l.stopWriter)
		<-l.writerDone
	} else {
		l.shutdown()
	}
	l.giveBack()
	err := l.closeErr
	if uerr := l.lock.unlock(); err == nil && uerr != nil {
		err = fmt.Errorf("wal: unlock: %w", uerr)
	}
	return err
}
