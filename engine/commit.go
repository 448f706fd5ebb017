package engine

import (
	"context"
	"fmt"

	"github.com/stalkd/stalkd/jobs"
)

// commitWaiter lets goroutines wait until a journal sequence number is
// committed, woken by the journal's commit notification (never polling).
// Waiters share one channel, closed and replaced at each notification that
// finds someone waiting: one allocation per commit round with waiters, none
// per operation, and none at all in memory (sequence numbers are 0 there).
type commitWaiter struct {
	jq      *jobs.Queue
	commits broadcast // signalled by each commit notification
}

func (c *commitWaiter) init(jq *jobs.Queue) { c.jq = jq }

// notify is the journal subscriber: it runs on the journal's goroutine and
// must not block.
func (c *commitWaiter) notify() { c.commits.signal() }

// wait returns once seq is committed, with nil; or with the journal's
// failure (wrapping jobs.ErrJournal), ctx's error or ErrClosed, whichever
// comes first. closing is the queue's Close signal.
func (c *commitWaiter) wait(ctx context.Context, seq uint64, closing <-chan struct{}) error {
	if done, err := c.check(seq); done {
		return err // in memory, or already committed: no channel needed
	}
	for {
		// Take the channel before checking, so that a commit between the
		// check and the select still wakes us.
		ch := c.commits.wait()
		if done, err := c.check(seq); done {
			return err
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-closing:
			if done, err := c.check(seq); done {
				return err
			}
			return ErrClosed
		}
	}
}

// check reports whether waiting for seq is over, and with what error.
func (c *commitWaiter) check(seq uint64) (bool, error) {
	done, err := c.jq.Committed(seq)
	if !done {
		return false, nil
	}
	if err != nil {
		return true, fmt.Errorf("%w: %w", jobs.ErrJournal, err)
	}
	return true, nil
}
