package jobs

// Subscribe registers fn to be called each time the queue's journal commits
// (Committed may then answer differently), from the journal's own goroutine
// and never with a queue lock held. Without a journal fn is never called:
// every change is committed as it is made. It is how a server learns that
// replies waiting for a commit may be sent, without polling; the journal
// comes with the queue, so the subscription cannot be forgotten or given a
// different journal.
func (q *Queue) Subscribe(fn func()) {
	if q.journal != nil {
		q.journal.Subscribe(fn)
	}
}
