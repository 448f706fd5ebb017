package engine

import (
	"errors"
	"io"
	"os"
	"time"
)

// finishTimeout bounds how long a closed connection's last replies may wait
// for their journal commit and for the client to read them.
const finishTimeout = 5 * time.Second

// isEOF reports whether gnet closed the connection because the peer ended
// its input (a close or a half-close).
func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// answerAtEOF answers, inside OnClose, what the client sent before it
// half-closed: a pending reserve gets its outcome or TIMED_OUT (as from the
// reference), then the buffered commands run, with reserves that cannot
// wait. gnet closes the socket when OnClose returns and flushes what it can
// without blocking; replies still waiting for a journal commit are finished
// on a duplicate of the socket.
func (cn *conn) answerAtEOF() {
	cn.eof = true
	if cn.waiting && !cn.takeOutcome() {
		cn.waiting = false
		d, err := cn.sess.CancelWait()
		cn.reserved(d, 0, err)
	}
	if !cn.blocked() {
		cn.decodeAll()
	}
	if !cn.held.empty() {
		cn.srv.queue.Flush()
		cn.out = cn.held.release(cn.out, cn.srv.queue)
	}
	if len(cn.out) > 0 {
		if _, err := cn.gc.Write(cn.out); err != nil {
			return
		}
		cn.out = cn.out[:0]
	}
	if !cn.held.empty() && cn.gc.OutboundBuffered() == 0 {
		cn.srv.finishLater(cn)
	}
}

// finishLater writes a closing connection's held replies from a goroutine,
// on a duplicate of its socket, as their commits arrive (see finish).
func (s *Server) finishLater(cn *conn) {
	if f, ok := cn.gc.(interface{ finishHeld(heldReplies) }); ok {
		f.finishHeld(*cn.held) // a TLS connection finishes them itself
		cn.held = nil
		return
	}
	fd, err := cn.gc.Dup()
	if err != nil {
		s.log.Warn().Err(err).Int("fd", int(cn.fd)).Msg("dropping replies of a closed connection")
		return
	}
	f := os.NewFile(uintptr(fd), "client")
	h := *cn.held
	cn.held = nil
	s.finishers.Add(1)
	go s.finish(f, h)
}

// finish writes h's replies to f as their commits arrive, waking on each
// journal commit, until all are written, a write fails or finishTimeout
// passes.
func (s *Server) finish(f *os.File, h heldReplies) {
	defer s.finishers.Done()
	defer f.Close()
	deadline := time.NewTimer(finishTimeout)
	defer deadline.Stop()
	_ = f.SetWriteDeadline(time.Now().Add(finishTimeout))
	var out []byte
	for {
		// Take the signal before looking, so that a commit in between
		// is not missed.
		commit := s.commits.Wait()
		out = h.release(out[:0], s.queue)
		if len(out) > 0 {
			if _, err := f.Write(out); err != nil {
				return
			}
		}
		if h.empty() {
			return
		}
		select {
		case <-commit:
		case <-deadline.C:
			return
		}
	}
}

// committed is the queue's commit subscription: it wakes the connections
// holding replies, and the finishers of closed ones.
func (s *Server) committed() {
	s.reg.wakeHolding()
	s.commits.Signal()
}
