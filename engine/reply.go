package engine

import (
	"github.com/panjf2000/gnet/v2"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/jobs"
)

// The reply helpers the handlers share: each appends one reply and settles
// it with done, which holds it back while the journal has not committed it.

// reserved answers a reserve with the job or the error.
func (cn *conn) reserved(d jobs.JobData, seq uint64, err error) {
	if err != nil {
		cn.fail(err)
		return
	}
	if cn.sendJob(codec.AppendReservedHeader, d.ID, d.Body(), seq) ||
		cn.holdJob(codec.AppendReservedHeader, d.ID, d.Body(), seq, codec.InternalError) {
		return
	}
	mark := len(cn.out)
	cn.out = codec.AppendReserved(cn.out, d.ID, d.Body())
	cn.done(mark, seq, codec.InternalError)
}

// found answers a peek.
func (cn *conn) found(d jobs.JobData, err error) {
	if err != nil {
		cn.fail(err)
		return
	}
	if cn.sendJob(codec.AppendFoundHeader, d.ID, d.Body(), 0) ||
		cn.holdJob(codec.AppendFoundHeader, d.ID, d.Body(), 0, "") {
		return
	}
	mark := len(cn.out)
	cn.out = codec.AppendFound(cn.out, d.ID, d.Body())
	cn.done(mark, 0, "")
}

// bigReply is the body size from which a reply that carries a job body is
// written straight from the job's buffer (sendJob) instead of out.
const bigReply = 16 << 10

// sendJob writes a reply carrying a large job body - the header, then the
// body straight from the job's buffer, then its CRLF - after the replies
// already in out, in one writev, and reports whether it did. The kernel copies the body
// once, and gnet copies only what the socket cannot take now; appending it
// to out cost a copy more, and a large reply buffer allocated and faulted
// in for every batch. A job's body is never modified once queued (Put's
// contract), so the view stays valid whatever happens to the job later.
//
// It applies only where the reply would be written, unchanged, at the end
// of this callback anyway: a plain gnet connection, inside serve, nothing
// held back and no journal commit to wait for. Otherwise the caller
// appends as usual. A failed write closes the connection inline, as
// flush's does; the callers check cn.closed (or lose cn.rx) afterwards.
func (cn *conn) sendJob(header func([]byte, uint64, int) []byte, id uint64, body []byte, seq uint64) bool {
	if len(body) < bigReply || seq != 0 || !cn.held.empty() || !cn.inServe || cn.closed {
		return false
	}
	gc, plain := cn.gc.(gnet.Conn)
	if !plain {
		return false
	}
	mark := len(cn.out)
	cn.out = header(cn.out, id, len(body))
	if cn.srv.verbose >= 2 {
		cn.traceReply(cn.out[mark:], 0)
	}
	_, _ = gc.Writev([][]byte{cn.out, body, crlf})
	cn.out = cn.out[:0]
	return true
}

// holdJob holds back a reply carrying a large job body that must wait (for
// journal record seq, or behind replies already held: a batch of deletes
// sent with the next reserves) as its header and a view of the body, and
// reports whether it did. Appending it to out and then to the held buffer
// cost two copies of the body into fresh memory, and a third when flush
// gathered the held replies; flush now writes the body from the job's
// buffer with writev (heldReplies.releaseSome). Plain gnet connections
// only, as sendJob; fail is sent instead if the journal fails.
func (cn *conn) holdJob(header func([]byte, uint64, int) []byte, id uint64, body []byte, seq uint64, fail string) bool {
	if len(body) < bigReply || cn.closed {
		return false
	}
	if _, plain := cn.gc.(gnet.Conn); !plain {
		return false
	}
	seq, failed := cn.settle(seq)
	if failed || (seq == 0 && cn.held.empty()) {
		return false // the ordinary path answers fail, or writes it at the end of the callback
	}
	mark := len(cn.out)
	cn.out = header(cn.out, id, len(body))
	cn.hold(mark, seq, fail, body)
	return true
}

// crlf ends a job body that sendJob writes from the job's own buffer (the
// queue keeps bodies without it). gnet only reads it.
var crlf = []byte("\r\n")

// watching answers watch and ignore.
func (cn *conn) watching(n int, err error) {
	if err != nil {
		cn.fail(err)
		return
	}
	mark := len(cn.out)
	cn.out = codec.AppendWatching(cn.out, n)
	cn.done(mark, 0, "")
}

// word answers with a fixed word once change seq is committed, or with the
// error's word.
func (cn *conn) word(seq uint64, err error, word string) {
	if err != nil {
		cn.fail(err)
		return
	}
	mark := len(cn.out)
	cn.out = append(cn.out, word...)
	cn.done(mark, seq, codec.InternalError)
}

// fail answers with the word of a queue error.
func (cn *conn) fail(err error) {
	mark := len(cn.out)
	cn.out = append(cn.out, wordFor(err)...)
	cn.done(mark, 0, "")
}

// okDoc answers with a YAML document; doc is kept as the scratch buffer.
func (cn *conn) okDoc(doc []byte) {
	cn.rx.scratch = doc
	mark := len(cn.out)
	cn.out = codec.AppendOK(cn.out, doc)
	cn.done(mark, 0, "")
}

// done settles the reply just appended at cn.out[mark:]. It stays in out,
// to be written at the end of the callback, unless it must wait for journal
// record seq or comes after a reply that waits: then it moves to the held
// queue. fail replaces it if the journal has already failed.
func (cn *conn) done(mark int, seq uint64, fail string) {
	if cn.fence == fenceRead || (cn.fence == fenceNoop && seq == 0) {
		// A reply that shows jobs waits for a read fence: on a cluster
		// leader, proof that it still leads and that what it showed is
		// committed (jobs.Fencer; a single node's journal has none). So
		// does a change that changed nothing: its reply is a read.
		if f := cn.srv.queue.ReadFence(); f > seq {
			seq = f
			if fail == "" {
				fail = codec.InternalError
			}
		}
	}
	cn.fence = fenceNone
	seq, failed := cn.settle(seq)
	if failed {
		cn.out = append(cn.out[:mark], fail...)
	}
	if seq == 0 && cn.held.empty() {
		if cn.srv.verbose >= 2 {
			cn.traceReply(cn.out[mark:], 0)
		}
		return
	}
	cn.hold(mark, seq, fail, nil)
}

// settle looks journal record seq up: 0 once it is committed (or when seq
// is 0), and failed when the journal failed before committing it.
func (cn *conn) settle(seq uint64) (left uint64, failed bool) {
	if seq == 0 {
		return 0, false
	}
	ok, err := cn.srv.queue.Committed(seq)
	switch {
	case err != nil:
		return 0, true
	case ok:
		return 0, false
	}
	return seq, false
}

// hold moves the reply at cn.out[mark:] to the held queue, to be sent once
// record seq is committed (0: once everything held before it is), or fail
// if the journal fails; with body, the reply is cn.out[mark:] (its header),
// then body, then a CRLF, and body is kept as a view (see addBody).
func (cn *conn) hold(mark int, seq uint64, fail string, body []byte) {
	if cn.srv.verbose >= 2 {
		cn.traceReply(cn.out[mark:], seq)
	}
	if cn.held == nil {
		cn.held = new(heldReplies) // kept: a durable client holds often
	}
	switch {
	case body != nil:
		cn.held.addBody(seq, fail, cn.out[mark:], body)
	case seq == 0:
		cn.held.addReady(cn.out[mark:])
	default:
		cn.held.addPending(seq, fail, cn.out[mark:])
	}
	cn.out = cn.out[:mark]
}
