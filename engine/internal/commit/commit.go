package commit

import (
	"context"
	"fmt"
	"sync"

	"github.com/stalkd/stalkd/jobs"
)

// Waiter lets goroutines wait until a journal sequence number is
// committed, woken by the journal's commit notification (never polling).
// Waiters share one channel, closed and replaced at each notification that
// finds someone waiting: one allocation per commit round with waiters, none
// per operation, and none at all in memory (sequence numbers are 0 there).
type Waiter struct {
	jq      *jobs.Queue
	closed  error     // what Wait returns once closing is closed
	commits Broadcast // signalled by each commit notification
}

// Init points the waiter at jq's commits; a Wait cut short by its closing
// channel returns closed. Call it once, before any Wait; then hand Notify
// to jq.Subscribe (or to whatever relays jq's commits).
func (c *Waiter) Init(jq *jobs.Queue, closed error) { c.jq, c.closed = jq, closed }

// Notify is the journal subscriber: it runs on the journal's goroutine and
// must not block.
func (c *Waiter) Notify() { c.commits.Signal() }

// Wait returns once seq is committed, with nil; or with the journal's
// failure (wrapping jobs.ErrJournal), ctx's error or the closed error given to Init, whichever
// comes first. closing is the owner's Close signal (nil: none). Safe for
// concurrent use.
func (c *Waiter) Wait(ctx context.Context, seq uint64, closing <-chan struct{}) error {
	if done, err := c.check(seq); done {
		return err // in memory, or already committed: no channel needed
	}
	c.jq.Flush() // a journal that leaves writing to its callers writes seq now
	for {
		// Take the channel before checking, so that a commit between the
		// check and the select still wakes us.
		ch := c.commits.Wait()
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
			return c.closed
		}
	}
}

// check reports whether waiting for seq is over, and with what error.
func (c *Waiter) check(seq uint64) (bool, error) {
	done, err := c.jq.Committed(seq)
	if !done {
		return false, nil
	}
	if err != nil {
		return true, fmt.Errorf("%w: %w", jobs.ErrJournal, err)
	}
	return true, nil
}

// Broadcast wakes every goroutine waiting on it, each time it is signalled.
// The zero value is ready to use; it is safe for concurrent use.
type Broadcast struct {
	mu sync.Mutex
	ch chan struct{}
}

// Wait returns a channel closed by the next signal.
func (b *Broadcast) Wait() <-chan struct{} {
	b.mu.Lock()
	if b.ch == nil {
		b.ch = make(chan struct{})
	}
	ch := b.ch
	b.mu.Unlock()
	return ch
}

// Signal wakes everyone waiting since the last signal.
func (b *Broadcast) Signal() {
	b.mu.Lock()
	if b.ch != nil {
		close(b.ch)
		b.ch = nil
	}
	b.mu.Unlock()
}
