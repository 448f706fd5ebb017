package engine

// heldReplies keeps a connection's replies in command order from the first
// one that must wait for a journal commit: that reply, and every reply after
// it, stays here until the commit is known. Commands keep executing while
// replies are held; only the writing waits.
//
// Ownership: one connection, used from its event loop only. The buffers are
// reused, so holding replies allocates only while they grow. A reply that
// carries a large job body (addBody) keeps only its header in buf and a view
// of the body, which the queue never modifies once queued: the body is not
// copied until the kernel takes it (flush writes it with writev).
type heldReplies struct {
	buf     []byte      // reply bytes of every entry, back to back
	entries []heldEntry // in command order
	bodies  int         // bytes of the job bodies (and their CRLFs) the entries refer to
}

// heldEntry is one run of replies in heldReplies.buf.
type heldEntry struct {
	seq  uint64 // journal sequence to wait for; 0 when ready to send
	fail string // sent instead of the bytes if the journal fails
	end  int    // end offset of the entry's bytes in buf
	// body, when set, follows the entry's bytes on the wire, then a CRLF:
	// a view of a job's body (never modified once queued), not a copy.
	body []byte
}

// empty reports whether nothing is held (a nil h holds nothing).
func (h *heldReplies) empty() bool { return h == nil || len(h.entries) == 0 }

// size is the number of bytes held.
func (h *heldReplies) size() int {
	if h == nil {
		return 0
	}
	return len(h.buf) + h.bodies
}

// addReady appends a reply that needs no commit; it is sent as soon as
// everything before it is.
func (h *heldReplies) addReady(b []byte) {
	h.buf = append(h.buf, b...)
	if n := len(h.entries); n > 0 && h.entries[n-1].seq == 0 && h.entries[n-1].body == nil {
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

// addBody appends a reply made of header, then body, then a CRLF, that may
// be sent once journal record seq is committed (0: when everything before
// it is); if the journal fails instead, fail is sent. body is kept as a
// view, not copied: the caller guarantees it is never modified.
func (h *heldReplies) addBody(seq uint64, fail string, header, body []byte) {
	h.buf = append(h.buf, header...)
	h.bodies += len(body) + len(crlf)
	h.entries = append(h.entries, heldEntry{seq: seq, fail: fail, end: len(h.buf), body: body})
}

// committer tells whether a journal sequence number is committed (see
// jobs.Queue.Committed).
type committer interface {
	Committed(seq uint64) (done bool, err error)
}

// release appends to dst every reply that may now be sent, in order, and
// drops them from h. It stops at the first entry whose commit is still
// unknown. Job bodies are copied into dst; flush uses releaseSome to write
// them from where they are.
func (h *heldReplies) release(dst []byte, q committer) []byte {
	for {
		var body []byte
		dst, body = h.releaseSome(dst, q)
		if body == nil {
			return dst
		}
		dst = append(append(dst, body...), crlf...)
	}
}

// releaseSome is release up to the first reply that carries a job body: it
// appends that reply's header to dst, drops the reply from h and returns its
// body, which (followed by a CRLF) must be written right after dst. A nil
// body means it stopped at a reply still waiting, or ran out of replies.
func (h *heldReplies) releaseSome(dst []byte, q committer) (out, body []byte) {
	start, i, bodies := 0, 0, 0
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
				if e.body != nil {
					bodies += len(e.body) + len(crlf)
				}
				continue
			}
		}
		dst = append(dst, h.buf[start:e.end]...)
		start = e.end
		if e.body != nil {
			body = e.body
			bodies += len(e.body) + len(crlf)
			i++
			break
		}
	}
	if i == 0 {
		return dst, nil
	}
	h.bodies -= bodies
	n := copy(h.buf, h.buf[start:])
	h.buf = h.buf[:n]
	k := copy(h.entries, h.entries[i:])
	clear(h.entries[k:]) // drop the moved-out entries' body views
	h.entries = h.entries[:k]
	for j := range h.entries {
		h.entries[j].end -= start
	}
	return dst, body
}
