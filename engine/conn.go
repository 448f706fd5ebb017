package engine

import (
	"sync/atomic"

	"github.com/panjf2000/gnet/v2"

	"github.com/stalkd/stalkd/codec"
	"github.com/stalkd/stalkd/jobs"
)

// peekWindow bounds how much buffered input one decoding pass looks at, so
// that a large backlog is not copied whole each time gnet's ring wraps.
const peekWindow = 256 << 10

// keepOutCap: a reply buffer that grew past this (a large job) is dropped
// after the write instead of being kept for the connection's lifetime.
const keepOutCap = 256 << 10

// conn is the state of one client connection.
//
// Ownership: everything but busy belongs to the connection's event loop and
// is touched only inside gnet callbacks for this connection. The session's
// wake function is the only thing other goroutines call, and it merely asks
// gnet to run OnTraffic on that loop.
//
// Size: a server holds one per connection, most of them idle, so what only
// a command in progress needs lives in connRx, what only held replies need
// in heldReplies, and the peer's address is asked of the transport when a
// log wants it. TestConnSize pins the size.
type conn struct {
	srv  *Server
	gc   transport
	sess *jobs.Session
	rx   *connRx // nil until the first input: an idle connection has none

	out  []byte       // replies of this callback, written once at its end (kept in rx between commands)
	held *heldReplies // replies waiting behind a journal commit (nil until one waits)

	idle idleState // Config.IdleTimeout's bookkeeping

	heldShare int64 // this connection's part of Server.held (budget.go)

	fd      int32 // the socket, for the logs
	regSlot int32 // 1 + its index in the registry's list (guarded by its mu); 0: not listed

	busy atomic.Bool // replies not yet fully written (read by Stop)

	authFailures uint8 // wrong tokens so far (at most MaxAuthFailures)

	authed   bool      // auth passed, or not required
	waiting  bool      // a reserve is pending: later commands are held back
	fence    fenceKind // which replies of the command being answered wait for a read fence (reply.go)
	stall    bool      // too many reply bytes queued: commands wait
	quitting bool      // quit seen: close once the held replies are written
	eof      bool      // the peer half-closed: answer what is buffered, never wait
	closed   bool      // OnClose ran: the session is gone
	inServe  bool      // inside serve (a failed write closes the conn inline)
	heldBig  bool      // heldShare once reached bigRelease (budget.go)

	stalledReg, holdingReg bool // membership in the registry's sets
}

// Wake is the session's wake-up (jobs.Waker): a reserve outcome is ready.
// Other goroutines call it; it reads only gc, which never changes, and asks
// the transport to serve the connection on its owner.
func (cn *conn) Wake() { _ = cn.gc.Wake(nil) }

// connRx is the part of a connection's state that only executing commands
// use. A connection borrows one from the Server's pool when input arrives
// and gives it back when a serve ends between commands (the decoder holds
// nothing), so that an idle connection - most of a client pool - does not
// carry a decoder and scratch buffers.
type connRx struct {
	dec codec.Decoder
	// cmd is the command being executed. It lives here, not on the stack,
	// because the handlers are called through a table and so it would move
	// to the heap: one allocation per command. Its views (Name, Token,
	// Body) are cleared after each command.
	cmd     codec.Command
	putID   uint64   // the id spent by the put line whose body is awaited
	out     []byte   // the connection's empty reply buffer, while rx is not lent
	scratch []byte   // a YAML document before it is framed
	names   []string // tube names for the list replies
	ids     []uint64 // job ids for list-jobs
}

// serve is OnTraffic: new input arrived, or the connection was woken (a
// reserve outcome, a journal commit, a tick while stalled).
func (cn *conn) serve() gnet.Action {
	cn.inServe = true
	defer func() { cn.inServe = false }()
	if cn.srv.cfg.IdleTimeout > 0 {
		cn.noteInput()
		if cn.idleNow() {
			cn.srv.closeIdle(cn)
			return gnet.Close
		}
		defer cn.noteState()
	}
	a := cn.step()
	if cn.rx != nil && cn.rx.dec.Idle() {
		cn.returnRx()
	}
	if a == gnet.None && !cn.closed && cn.account() {
		return gnet.Close
	}
	return a
}

// borrowRx lends the connection a connRx, and with it a reply buffer if
// the connection has none.
func (cn *conn) borrowRx() {
	rx := cn.srv.getRx()
	if cn.out == nil {
		cn.out, rx.out = rx.out, nil
	}
	cn.rx = rx
}

// returnRx gives the connRx back between commands, with the connection's
// reply buffer if it is empty: an idle connection keeps neither.
func (cn *conn) returnRx() {
	rx := cn.rx
	cn.rx = nil
	if len(cn.out) == 0 && cn.out != nil {
		rx.out, cn.out = cn.out, nil
	}
	cn.srv.putRx(rx)
}

// rxKeepCap: scratch buffers that grew past this are not kept in the pool.
const rxKeepCap = 16 << 10

// getRx takes a connRx from the pool (see connRx).
func (s *Server) getRx() *connRx {
	if rx, ok := s.rxPool.Get().(*connRx); ok {
		return rx
	}
	return &connRx{dec: codec.MakeDecoder(s.cfg.MaxJobSize)}
}

// putRx resets rx and returns it to the pool.
func (s *Server) putRx(rx *connRx) {
	rx.dec.Reset()
	rx.cmd, rx.putID = codec.Command{}, 0
	rx.scratch = rx.scratch[:0]
	if cap(rx.scratch) > rxKeepCap {
		rx.scratch = nil
	}
	if cap(rx.out) > rxKeepCap {
		rx.out = nil
	}
	if cap(rx.names) > rxKeepCap/16 {
		rx.names = nil
	}
	if cap(rx.ids) > rxKeepCap/8 {
		rx.ids = nil
	}
	s.rxPool.Put(rx)
}

// step does serve's work: deliver a reserve outcome, run the buffered
// commands, write the replies.
func (cn *conn) step() gnet.Action {
	if s := cn.srv; s.stopping.Load() {
		// Shutting down: write what is due, start nothing new, and leave
		// a reserve outcome untaken, so that closing returns the job. An
		// adopted connection is handed back once that is done.
		if s.detaching.Load() {
			if ad, ok := s.adopted.Load(cn); ok {
				return cn.detach(ad.(*adoption))
			}
		}
		return cn.flush()
	}
	if cn.waiting && !cn.takeOutcome() {
		if cn.tooMuchInbound() {
			return gnet.Close
		}
		return cn.flush()
	}
	if cn.closed {
		return gnet.None // delivering the outcome failed to write and closed the connection
	}
	if !cn.quitting {
		cn.decodeAll()
		if (cn.waiting || cn.stall) && cn.tooMuchInbound() {
			return gnet.Close
		}
	}
	return cn.flush()
}

// takeOutcome delivers the outcome of a pending reserve, if there is one
// yet, and reports whether the reserve is over.
func (cn *conn) takeOutcome() bool {
	d, err := cn.sess.TakeOutcome()
	if err == jobs.ErrWaiting {
		return false
	}
	cn.waiting = false
	cn.reserved(d, cn.sess.LastSeq(), err) // LastSeq: 0 unless replicated
	return true
}

// decodeAll executes the buffered commands until the input runs out or a
// command holds the rest back (a pending reserve, quit, a full reply queue).
func (cn *conn) decodeAll() {
	cn.stall = false
	if cn.rx == nil {
		if cn.gc.InboundBuffered() == 0 {
			return
		}
		cn.borrowRx()
	}
	for !cn.blocked() && cn.rx != nil {
		avail := cn.gc.InboundBuffered()
		if avail == 0 {
			cn.pullBody()
			return
		}
		in, err := cn.gc.Peek(min(avail, peekWindow))
		if err != nil {
			return
		}
		off, needInput := cn.decode(in)
		if off > 0 {
			_, _ = cn.gc.Discard(off)
		}
		if needInput && len(in) == avail {
			if off == avail {
				cn.pullBody() // all input consumed, and a body may be due
			}
			return
		}
	}
}

// decode executes the commands in one window of input and returns how many
// bytes were consumed, and whether it stopped for want of input (rather than
// because it was blocked).
func (cn *conn) decode(in []byte) (off int, needInput bool) {
	for !cn.blocked() {
		if off < len(in) && cn.overLimit() { // with no input left, nothing waits
			cn.stall = true
			return off, false
		}
		rx := cn.rx
		var n int
		var ok bool
		rx.cmd, n, ok = rx.dec.Decode(in[off:])
		off += n
		if !ok {
			return off, true
		}
		cn.exec(&rx.cmd)
		if cn.rx != rx { // the connection ended inline and gave rx back
			return off, false
		}
		rx.cmd.Name, rx.cmd.Token, rx.cmd.Body = nil, nil, nil
	}
	return off, false
}

// blocked reports whether later commands must wait.
func (cn *conn) blocked() bool { return cn.waiting || cn.quitting || cn.stall }

// overLimit reports whether the client has more reply bytes queued than a
// slow reader may.
func (cn *conn) overLimit() bool {
	n := len(cn.out) + cn.held.size() + cn.gc.OutboundBuffered()
	return n > cn.srv.cfg.SlowReaderLimit
}

// tooMuchInbound closes off a client that keeps sending while its commands
// are held back.
func (cn *conn) tooMuchInbound() bool {
	n := cn.gc.InboundBuffered()
	limit := cn.srv.cfg.InboundLimit
	if !cn.waiting {
		limit = cn.srv.cfg.StalledInboundLimit
	}
	if n <= limit {
		return false
	}
	cn.srv.log.Warn().Int("fd", int(cn.fd)).Int("buffered", n).Bool("reserving", cn.waiting).
		Msg("closing a connection that sends too much while its commands wait")
	return true
}

// flush writes the replies that may be sent, in one write, and updates the
// connection's registrations. It returns Close once a quit may take effect.
//
// Replies held for the journal are what this batch of commands logged: the
// journal's records are written first (Queue.Flush: one write(2) of every
// record buffered, on this event loop, never an fsync), so that with -f MS
// and -F they are committed before the replies go out, in this same
// callback; with -f0 they wait for the fsync the journal's own goroutine
// makes, and its commit wakes the connection.
func (cn *conn) flush() gnet.Action {
	if !cn.held.empty() {
		cn.srv.queue.Flush()
	}
	for {
		var body []byte
		if !cn.held.empty() {
			cn.out, body = cn.held.releaseSome(cn.out, cn.srv.queue)
		}
		if body != nil {
			if !cn.writeWithBody(body) {
				return gnet.None // gnet closed the connection inline
			}
			continue // more may be ready behind it
		}
		if len(cn.out) > 0 {
			_, err := cn.gc.Write(cn.out)
			if err != nil || cn.closed {
				return gnet.None // gnet closed the connection inline
			}
			cn.out = cn.out[:0]
			if cap(cn.out) > keepOutCap {
				cn.out = nil
			}
		}
		if cn.held.empty() || cn.holdingReg {
			break
		}
		// Register for commit notifications, then look again: a commit
		// that landed in between would otherwise go unnoticed.
		cn.holdingReg = true
		cn.srv.reg.setHolding(cn, true)
	}
	cn.track()
	if cn.quitting && cn.held.empty() {
		return gnet.Close
	}
	return gnet.None
}

// writeWithBody writes out, then a held job body and its CRLF, in one
// writev (holdJob made such replies only on plain gnet connections; any
// other transport gets the bytes copied), and empties out. It reports false
// when the write failed or closed the connection.
func (cn *conn) writeWithBody(body []byte) bool {
	var err error
	if gc, plain := cn.gc.(gnet.Conn); plain {
		_, err = gc.Writev([][]byte{cn.out, body, crlf})
	} else {
		cn.out = append(append(cn.out, body...), crlf...)
		_, err = cn.gc.Write(cn.out)
	}
	if err != nil || cn.closed {
		return false
	}
	cn.out = cn.out[:0]
	return true
}

// track keeps the registry's view of this connection current.
func (cn *conn) track() {
	holding := !cn.held.empty()
	if !holding && cn.holdingReg {
		cn.holdingReg = false
		cn.srv.reg.setHolding(cn, false)
	}
	if cn.stall != cn.stalledReg {
		cn.stalledReg = cn.stall
		cn.srv.reg.setStalled(cn, cn.stall)
	}
	cn.busy.Store(holding || cn.gc.OutboundBuffered() > 0)
}
