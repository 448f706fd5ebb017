package engine

import (
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
	mark := len(cn.out)
	cn.out = codec.AppendReserved(cn.out, d.ID, d.Wire())
	cn.done(mark, seq, codec.InternalError)
}

// found answers a peek.
func (cn *conn) found(d jobs.JobData, err error) {
	if err != nil {
		cn.fail(err)
		return
	}
	mark := len(cn.out)
	cn.out = codec.AppendFound(cn.out, d.ID, d.Wire())
	cn.done(mark, 0, "")
}

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
	if seq != 0 {
		switch ok, err := cn.srv.queue.Committed(seq); {
		case err != nil:
			cn.out = append(cn.out[:mark], fail...)
			seq = 0
		case ok:
			seq = 0
		}
	}
	if cn.srv.verbose >= 2 {
		cn.traceReply(cn.out[mark:], seq)
	}
	if seq == 0 && cn.held.empty() {
		return
	}
	if cn.held == nil {
		cn.held = new(heldReplies) // kept: a durable client holds often
	}
	if seq == 0 {
		cn.held.addReady(cn.out[mark:])
	} else {
		cn.held.addPending(seq, fail, cn.out[mark:])
	}
	cn.out = cn.out[:mark]
}
