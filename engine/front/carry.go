package front

import (
	"errors"
	"net"
	"sync"
)

// A carried connection survives a change of leader. The front frames the
// client's commands with the engine's decoder in framing-only mode
// (commands.go), so it knows how many replies each one is owed without
// copying a body, and frames the leader's replies (replies.go). When the
// leader's side fails (or, with Config.Moved, a leader of a newer
// generation is known while the old one holds on), every command sent but
// not answered is answered INTERNAL_ERROR (it may or may not have been
// carried out, as when a single server dies between write and reply);
// then the front connects to the new leader, replays the client's auth,
// use and watch list, and goes on with the commands that followed
// (failover.go). The client sees errors for what was in flight, not a
// closed connection - unless no leader appears within the front's Wait, or
// the leader closed the connection on purpose (the same leader, in the
// same term, accepts again): then the connection closes. (Its reservations
// stay reserved until their TTR, and it may still delete, release, bury or
// touch them.)

// carrier runs one client connection.
//
// Ownership: while a session runs, its reply reader (readReplies) alone
// writes to the client and updates auth, use and watch; the session
// goroutine reads them, and writes to the client, only once the reader has
// ended. inflight is shared under mu: the session appends what it sends,
// the reader takes what is answered.
type carrier struct {
	f      *Front
	client net.Conn
	cmds   chan []carried // a batch per read of the client
	auth   []byte         // the client's accepted "auth <token>" line, replayed first
	gen    uint64         // the generation of the leader's engine the connection is on
	use    string
	watch  []string // listing order

	first []carried // commands read before the first session: it sends them first

	// A long command is carried in pieces (commands.go). open: the pieces
	// sent on the current leader began one and have not ended it; drop:
	// the leader that took its start failed (the command was answered
	// INTERNAL_ERROR with the others in flight), so its remaining pieces
	// are dropped, not sent to the next. Both belong to the session
	// goroutine.
	open, drop bool

	mu       sync.Mutex
	inflight []carried // sent to the leader, not answered yet, in order
	rend     error     // why the reply reader ended (set before its done closes)
}

// Why a session's reply reader ended besides its connection failing.
var (
	errClientGone = errors.New("front: writing to the client failed")
	errNotOurs    = errors.New("front: a reply to no command: not our engine")
)

// newCarrier returns the carrier of client, on the leader engine of
// generation gen, with a fresh session's tubes.
func newCarrier(f *Front, client net.Conn, gen uint64) *carrier {
	return &carrier{f: f, client: client, cmds: make(chan []carried, 16), gen: gen,
		use: "default", watch: []string{"default"}}
}

// end closes the client's socket once run is over.
func (c *carrier) end() {
	_ = c.client.Close()
	go func() { // readCommands ends at the closed socket; let it
		for range c.cmds {
		}
	}()
}

// run carries the client's commands to the leader, reconnecting when the
// leader changes, until the conversation ends.
func (c *carrier) run(up net.Conn) {
	for up != nil {
		up = c.session(up)
		if up == nil {
			return
		}
	}
}

// session carries commands over up until it fails (then it answers what
// was in flight, reconnects and returns the new connection) or the
// conversation ends (nil). Each batch of commands is one write to the
// leader; the reply reader writes each batch of replies to the client
// itself, one write per batch, without a hand-over to this goroutine.
func (c *carrier) session(up net.Conn) net.Conn {
	done := make(chan struct{})
	go c.readReplies(up, done)
	var wbuf []byte
	ended := false // quit sent or input ended: the leader's close ends it
	moved := c.f.moved()
	for {
		batch, ok := c.first, true // the command that made serve dial, first
		c.first = nil
		if batch == nil {
			var cmds chan []carried
			if !ended {
				cmds = c.cmds
			}
			select {
			case <-moved: // a new leader while this one holds on (paused, hung)
				if moved = c.f.moved(); !c.f.leaderMoved(c.gen) {
					continue
				}
				c.f.untrack(up) // the reader ends at the closed socket
				<-done
				return c.afterReplies(ended, true)
			case <-done:
				c.f.untrack(up)
				return c.afterReplies(ended, false)
			case batch, ok = <-cmds:
			}
		}
		if !ok {
			c.f.untrack(up)
			<-done
			return nil
		}
		wbuf = wbuf[:0]
		c.mu.Lock()
		for _, it := range batch {
			if it.eof {
				ended = true
				break
			}
			if it.quits() {
				ended = true
			}
			if it.cont && c.drop {
				c.drop = it.open // the rest of a command a failed leader began
				continue
			}
			if it.replies > 0 {
				c.inflight = append(c.inflight, it)
			}
			wbuf = append(wbuf, it.raw...)
			c.open = it.open
		}
		c.mu.Unlock()
		if len(wbuf) > 0 {
			if _, err := up.Write(wbuf); err != nil {
				c.f.untrack(up)
				if ended {
					<-done
					return nil
				}
				continue // the reader reports the failure
			}
		}
		if ended && batch[len(batch)-1].eof {
			if cw, ok := up.(interface{ CloseWrite() error }); ok { // TCP, or TLS between nodes
				_ = cw.CloseWrite()
			}
		}
	}
}

// afterReplies decides, once the reply reader has ended, whether the
// conversation is over (nil) or goes on with the next leader (failover).
// moved: the session left a leader that still holds on.
func (c *carrier) afterReplies(ended, moved bool) net.Conn {
	if !moved && (c.rend == errClientGone || c.rend == errNotOurs) {
		return nil
	}
	c.mu.Lock()
	inflight := c.inflight
	c.inflight = nil
	c.mu.Unlock()
	if ended && len(inflight) == 0 {
		return nil
	}
	// A long command partly sent is among inflight: the rest of its
	// pieces must not reach the next leader.
	c.drop, c.open = c.open, false
	return c.failover(inflight)
}
