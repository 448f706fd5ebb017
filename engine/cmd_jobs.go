package engine

import (
	"time"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/jobs"
)

// The handlers of the commands that put, take and change jobs.

// putLine spends the job's id as soon as its line parses, as the reference
// does; the body follows. A too-big put gets JOB_TOO_BIG after its body.
func (cn *conn) putLine(cmd *codec.Command) {
	if !cmd.TooBig {
		cn.rx.putID = cn.srv.queue.NextID() // rx stays until the body is in
		cn.sess.SetProducer()
	}
}

// put queues a job whose body has arrived, under the id its line spent.
func (cn *conn) put(cmd *codec.Command) {
	id, seq, err := cn.sess.Put(jobs.PutRequest{
		ID: cn.rx.putID, Pri: cmd.Pri, Delay: seconds(cmd.Delay), TTR: seconds(cmd.TTR),
		Owned: cmd.Body, // the decoder's exactly-sized buffer becomes the job's body
	})
	cn.rx.putID = 0
	mark := len(cn.out)
	switch err {
	case nil:
		cn.out = codec.AppendInserted(cn.out, id)
	case jobs.ErrPutBuried: // stored, buried (max_ready's overflow bury)
		cn.out = codec.AppendBuriedID(cn.out, id)
	default:
		cn.fail(err)
		return
	}
	cn.done(mark, seq, commitFailWord(codec.OpPut))
}

func (cn *conn) reserveForever(*codec.Command) { cn.reserve(-1) }

func (cn *conn) reserveWithTimeout(cmd *codec.Command) { cn.reserve(reserveTimeout(cmd.Timeout)) }

func (cn *conn) reserveJob(cmd *codec.Command) {
	d, seq, err := cn.sess.ReserveJob(cmd.ID)
	cn.reserved(d, max(seq, cn.sess.LastSeq()), err) // LastSeq: 0 unless replicated
}

// reserve starts a reserve; a pending one holds back later commands. A
// half-closed client cannot wait: it gets TIMED_OUT, as from the reference.
func (cn *conn) reserve(timeout time.Duration) {
	if cn.eof {
		timeout = 0
	}
	d, err := cn.sess.Reserve(timeout)
	if err == jobs.ErrWaiting {
		cn.waiting = true
		return
	}
	cn.reserved(d, cn.sess.LastSeq(), err) // LastSeq: 0 unless replicated
}

func (cn *conn) delete(cmd *codec.Command) {
	seq, err := cn.sess.Delete(cmd.ID)
	cn.word(seq, err, codec.Deleted)
}

func (cn *conn) release(cmd *codec.Command) {
	seq, err := cn.sess.Release(cmd.ID, cmd.Pri, seconds(cmd.Delay))
	cn.word(seq, err, codec.Released)
}

func (cn *conn) bury(cmd *codec.Command) {
	seq, err := cn.sess.Bury(cmd.ID, cmd.Pri)
	cn.word(seq, err, codec.Buried)
}

func (cn *conn) touch(cmd *codec.Command) {
	err := cn.sess.Touch(cmd.ID)
	cn.word(cn.sess.LastSeq(), err, codec.Touched) // LastSeq: 0 unless replicated
}

func (cn *conn) kick(cmd *codec.Command) {
	n, seq, err := cn.sess.Kick(cmd.Count)
	if err != nil {
		cn.fail(err)
		return
	}
	mark := len(cn.out)
	cn.out = codec.AppendKickedN(cn.out, n)
	cn.done(mark, seq, codec.InternalError)
}

func (cn *conn) kickJob(cmd *codec.Command) {
	seq, err := cn.sess.KickJob(cmd.ID)
	cn.word(seq, err, codec.Kicked)
}

func (cn *conn) peek(cmd *codec.Command)    { cn.found(cn.srv.queue.Peek(cmd.ID)) }
func (cn *conn) peekReady(*codec.Command)   { cn.found(cn.sess.PeekReady()) }
func (cn *conn) peekDelayed(*codec.Command) { cn.found(cn.sess.PeekDelayed()) }
func (cn *conn) peekBuried(*codec.Command)  { cn.found(cn.sess.PeekBuried()) }

// seconds converts a protocol duration (u32 seconds) to a Duration.
func seconds(s uint32) time.Duration { return time.Duration(s) * time.Second }

// reserveTimeout turns reserve-with-timeout's seconds into the queue's
// timeout: a negative number waits forever (-1 for Session.Reserve).
func reserveTimeout(s int32) time.Duration {
	if s < 0 {
		return -1
	}
	return seconds(uint32(s))
}
