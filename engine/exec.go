package engine

import (
	"time"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/jobs"
)

// exec executes one decoded command and queues its reply.
func (cn *conn) exec(cmd *codec.Command) {
	if cn.srv.verbose >= 2 {
		cn.traceCommand(cmd)
	}
	if c, ok := counterOf(cmd.Op); ok {
		cn.sess.Count(c)
	}
	if cmd.Err != nil {
		mark := len(cn.out)
		cn.out = codec.AppendError(cn.out, cmd.Err.(codec.WireError))
		cn.done(mark, 0, "")
		return
	}
	switch cmd.Op {
	case codec.OpPutHeader:
		if !cmd.TooBig { // else JOB_TOO_BIG follows the swallowed body
			cn.putID = cn.srv.queue.NextID()
			cn.sess.SetProducer()
		}
	case codec.OpPut:
		cn.put(cmd)
	case codec.OpReserve:
		cn.reserve(-1)
	case codec.OpReserveWithTimeout:
		cn.reserve(reserveTimeout(cmd.Timeout))
	case codec.OpReserveJob:
		d, seq, err := cn.sess.ReserveJob(cmd.ID)
		cn.reserved(d, seq, err)
	case codec.OpQuit:
		cn.quitting = true
	default:
		cn.execJobOp(cmd)
	}
}

// execJobOp executes the commands that act on one job or on the tubes.
func (cn *conn) execJobOp(cmd *codec.Command) {
	s := cn.sess
	switch cmd.Op {
	case codec.OpDelete:
		seq, err := s.Delete(cmd.ID)
		cn.word(seq, err, codec.Deleted)
	case codec.OpRelease:
		seq, err := s.Release(cmd.ID, cmd.Pri, seconds(cmd.Delay))
		cn.word(seq, err, codec.Released)
	case codec.OpBury:
		seq, err := s.Bury(cmd.ID, cmd.Pri)
		cn.word(seq, err, codec.Buried)
	case codec.OpTouch:
		cn.word(0, s.Touch(cmd.ID), codec.Touched)
	case codec.OpKick:
		n, seq, err := s.Kick(cmd.Count)
		if err != nil {
			cn.fail(err)
			return
		}
		mark := len(cn.out)
		cn.out = codec.AppendKickedN(cn.out, n)
		cn.done(mark, seq, codec.InternalError)
	case codec.OpKickJob:
		seq, err := s.KickJob(cmd.ID)
		cn.word(seq, err, codec.Kicked)
	case codec.OpPeek:
		cn.found(cn.srv.queue.Peek(cmd.ID))
	case codec.OpPeekReady:
		cn.found(s.PeekReady())
	case codec.OpPeekDelayed:
		cn.found(s.PeekDelayed())
	case codec.OpPeekBuried:
		cn.found(s.PeekBuried())
	case codec.OpPauseTube:
		cn.word(0, cn.srv.queue.PauseTube(cmd.Name, seconds(cmd.Delay)), codec.Paused)
	default:
		cn.execTubeOp(cmd)
	}
}

// execTubeOp executes the commands about tubes, lists and statistics.
func (cn *conn) execTubeOp(cmd *codec.Command) {
	s, q := cn.sess, cn.srv.queue
	mark := len(cn.out)
	switch cmd.Op {
	case codec.OpUse:
		if err := s.Use(cmd.Name); err != nil {
			cn.fail(err)
			return
		}
		cn.out = codec.AppendUsing(cn.out, s.Used())
	case codec.OpListTubeUsed:
		cn.out = codec.AppendUsing(cn.out, s.Used())
	case codec.OpWatch:
		cn.watching(s.Watch(cmd.Name))
		return
	case codec.OpIgnore:
		cn.watching(s.Ignore(cmd.Name))
		return
	case codec.OpListTubes:
		cn.names = q.ListTubes(cn.names[:0])
		cn.okDoc(codec.AppendYAMLList(cn.scratch[:0], cn.names))
		clear(cn.names)
		return
	case codec.OpListTubesWatched:
		cn.names = s.Watched(cn.names[:0])
		cn.okDoc(codec.AppendYAMLList(cn.scratch[:0], cn.names))
		clear(cn.names)
		return
	case codec.OpStats:
		st := q.Stats()
		cn.okDoc(cn.srv.appendStats(cn.scratch[:0], &st))
		return
	case codec.OpStatsTube:
		ts, err := q.StatsTube(cmd.Name)
		if err != nil {
			cn.fail(err)
			return
		}
		cn.okDoc(appendTubeStats(cn.scratch[:0], &ts))
		return
	case codec.OpStatsJob:
		js, err := q.StatsJob(cmd.ID)
		if err != nil {
			cn.fail(err)
			return
		}
		cn.okDoc(appendJobStats(cn.scratch[:0], &js))
		return
	default:
		cn.out = append(cn.out, codec.InternalError...)
		cn.srv.log.Error().Stringer("op", cmd.Op).Msg("engine: no handler for a decoded command")
	}
	cn.done(mark, 0, "")
}

// put queues a job whose body has arrived, under the id its line spent.
func (cn *conn) put(cmd *codec.Command) {
	id, seq, err := cn.sess.Put(jobs.PutRequest{
		ID: cn.putID, Pri: cmd.Pri, Delay: seconds(cmd.Delay), TTR: seconds(cmd.TTR),
		Body: cmd.Body,
	})
	cn.putID = 0
	if err != nil {
		cn.fail(err)
		return
	}
	mark := len(cn.out)
	cn.out = codec.AppendInserted(cn.out, id)
	cn.done(mark, seq, commitFailWord(codec.OpPut))
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
	cn.reserved(d, 0, err)
}

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
	cn.scratch = doc
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
	if seq == 0 {
		cn.held.addReady(cn.out[mark:])
	} else {
		cn.held.addPending(seq, fail, cn.out[mark:])
	}
	cn.out = cn.out[:mark]
}

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
