package admin

import (
	"sync"

	"github.com/stalkd/stalkd/engine/internal/commit"
	"github.com/stalkd/stalkd/jobs"
)

// commits hands out the commit waiter of the queue a request acts on: the
// same waiter the protocol's embedded queue uses (engine/internal/commit),
// woken by the queue's journal, never polling. One waiter per queue,
// subscribed once; in cluster mode the queue changes with the term, and the
// waiter with it (a request still waiting on the old one keeps it).
// Shared by every per-request copy of the Server; safe for concurrent use.
type commits struct {
	mu sync.Mutex
	q  *jobs.Queue
	w  *commit.Waiter
}

// waiter returns q's waiter, subscribing a new one on first use.
func (c *commits) waiter(q *jobs.Queue) *commit.Waiter {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.q != q {
		w := new(commit.Waiter)
		w.Init(q, nil) // no closing channel: ctx bounds every wait
		q.Subscribe(w.Notify)
		c.q, c.w = q, w
	}
	return c.w
}
