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

// CommitInline asks the journal to commit seq and everything before it on
// the calling goroutine (see InlineCommitter) and reports whether seq is
// committed. Without a journal that can, it does nothing and reports
// whether seq is committed already. It may block for a write and an
// fsync; the caller holds no lock of the queue (it is called between
// commands, never inside one).
func (q *Queue) CommitInline(seq uint64) bool {
	if q.inline == nil {
		done, err := q.Committed(seq)
		return done && err == nil
	}
	return q.inline.CommitInline(seq)
}
