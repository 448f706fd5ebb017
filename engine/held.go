package engine

// heldReplies keeps a connection's replies in command order from the first
// one that must wait for a journal commit: that reply, and every reply after
// it, stays here until the commit is known. Commands keep executing while
// replies are held; only the writing waits.
//
// Ownership: one connection, used from its event loop only. The buffers are
// reused, so holding replies allocates only while they grow.
type heldReplies struct {
	buf     []byte      // reply bytes of every entry, back to back
	entries []heldEntry // in command order
}

// heldEntry is one run of replies in heldReplies.buf.
type heldEntry struct {
	seq  uint64 // journal sequence to wait for; 0 when ready to send
	fail string // sent instead of the bytes if the journal fails
	end  int    // end offset of the entry's bytes in buf
}

// empty reports whether nothing is held (a nil h holds nothing).
func (h *heldReplies) empty() bool { return h == nil || len(h.entries) == 0 }

// size is the number of bytes held.
func (h *heldReplies) size() int {
	if h == nil {
		return 0
	}
	return len(h.buf)
}

// addReady appends a reply that needs no commit; it is sent as soon as
// everything before it is.
func (h *heldReplies) addReady(b []byte) {
	h.buf = append(h.buf, b...)
	if n := len(h.entries); n > 0 && h.entries[n-1].seq == 0 {
		h.entries[n-1].end = len(h.buf)
		return
	}
	h.entries = append(h.entries, heldEntry{end: len(h.buf)})
}

// addPending appends a reply that may be sent once journal record seq is
// committed; if the journal fails instead, fail is sent.
func (h *heldReplies) addPending(seq uint64, fail string, b []byte) {
	h.buf = append(h.buf, b...)
	h.entries = append(h.entries, heldEntry{seq: seq, fail: fail, end: len(h.buf)})
}

// committer tells whether a journal sequence number is committed (see
// jobs.Queue.Committed).
type committer interface {
	Committed(seq uint64) (done bool, err error)
}

// release appends to dst every reply that may now be sent, in order, and
// drops them from h. It stops at the first entry whose commit is still
// unknown.
func (h *heldReplies) release(dst []byte, q committer) []byte {
	start, i := 0, 0
	for ; i < len(h.entries); i++ {
		e := h.entries[i]
		if e.seq != 0 {
			done, err := q.Committed(e.seq)
			if err == nil && !done {
				break
			}
			if err != nil {
				dst = append(dst, e.fail...)
				start = e.end
				continue
			}
		}
		dst = append(dst, h.buf[start:e.end]...)
		start = e.end
	}
	if i == 0 {
		return dst
	}
	n := copy(h.buf, h.buf[start:])
	h.buf = h.buf[:n]
	k := copy(h.entries, h.entries[i:])
	h.entries = h.entries[:k]
	for j := range h.entries {
		h.entries[j].end -= start
	}
	return dst
}
