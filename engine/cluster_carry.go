package engine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/stalkd/stalkd/codec"
)

// A carried connection survives a change of leader. The front frames the
// client's commands with the same decoder the engine uses, so it knows how
// many replies each one is owed, and frames the leader's replies. When the
// leader's side fails (or, with FrontConfig.Moved, a leader of a newer
// generation is known while the old one holds on), every command sent but
// not answered is answered
// INTERNAL_ERROR (it may or may not have been carried out, as when a
// single server dies between write and reply); then the front connects to
// the new leader, replays the client's auth, use and watch list, and goes
// on with the commands that followed. The client sees errors for what was in
// flight, not a closed connection - unless no leader appears within the
// front's Wait, or the leader closed the connection on purpose (the same
// leader, in the same term, accepts again): then the connection closes. (Its reservations stay
// reserved until their TTR, and it may still delete, release, bury or
// touch them.)

// carried is one client command: its bytes, and what the front tracks.
type carried struct {
	raw     []byte
	op      codec.Op
	name    string // use, watch, ignore
	replies int    // 0 (quit, end of input) or 1
	eof     bool   // the client half-closed (no bytes)
}

// reply is one reply of the leader, or its connection's failure.
type reply struct {
	b   []byte
	err error
}

// carrier runs one client connection.
type carrier struct {
	f      *Front
	client net.Conn
	cmds   chan carried
	auth   []byte // the client's accepted "auth <token>" line, replayed first
	gen    uint64 // the generation of the leader's engine the connection is on
	use    string
	watch  []string // listing order
}

// readCommands frames the client's commands and hands them to run, until
// end of input or an error; it closes cmds.
func (c *carrier) readCommands() {
	defer close(c.cmds)
	d := codec.NewDecoder(c.f.cfg.MaxJobSize)
	var in, raw []byte
	buf := make([]byte, 16<<10)
	for {
		n, err := c.client.Read(buf)
		in = append(in, buf[:n]...)
		for {
			cmd, k, ok := d.Decode(in)
			raw = append(raw, in[:k]...)
			in = in[k:]
			if !ok {
				break
			}
			if cmd.Op == codec.OpPutHeader && cmd.Err == nil {
				// The body follows (or, too big, is swallowed and then
				// JOB_TOO_BIG comes): one reply for the line and the body.
				// A line refused at once (Err set) is owed its own reply.
				continue
			}
			it := carried{raw: raw, op: cmd.Op, replies: 1}
			if cmd.Err == nil {
				switch cmd.Op {
				case codec.OpUse, codec.OpWatch, codec.OpIgnore:
					it.name = string(cmd.Name)
				case codec.OpQuit:
					it.replies = 0
				}
			}
			raw = nil
			c.cmds <- it
			if it.op == codec.OpQuit && cmd.Err == nil {
				return
			}
		}
		if err != nil {
			if err == io.EOF {
				c.cmds <- carried{eof: true}
			}
			return
		}
	}
}

// run carries the client's commands to the leader, reconnecting when the
// leader changes, until the conversation ends.
func (c *carrier) run(up net.Conn) {
	c.use, c.watch = "default", []string{"default"}
	for up != nil {
		up = c.session(up)
		if up == nil {
			return
		}
	}
}

// session carries commands over up until it fails (then it answers what
// was in flight, reconnects and returns the new connection) or the
// conversation ends (nil).
func (c *carrier) session(up net.Conn) net.Conn {
	replies := make(chan reply, 64)
	done := make(chan struct{})
	defer close(done) // the reader may be blocked handing over a reply
	go readReplies(up, replies, done)
	var inflight []carried
	ended := false // quit sent or input ended: the leader's close ends it
	moved := c.f.moved()
	for {
		var cmds chan carried
		if !ended {
			cmds = c.cmds
		}
		select {
		case <-moved: // a new leader while this one holds on (paused, hung)
			if len(replies) > 0 {
				continue // moved stays ready: hand over what came first
			}
			if moved = c.f.moved(); !c.f.leaderMoved(c.gen) {
				continue
			}
			c.f.untrack(up)
			if ended && len(inflight) == 0 {
				return nil
			}
			return c.failover(inflight)
		case it, ok := <-cmds:
			if !ok {
				c.f.untrack(up)
				return nil
			}
			if it.eof {
				ended = true
				if cw, ok := up.(interface{ CloseWrite() error }); ok { // TCP, or TLS between nodes
					_ = cw.CloseWrite()
				}
				continue
			}
			if it.op == codec.OpQuit && it.replies == 0 {
				ended = true
			}
			if it.replies > 0 {
				inflight = append(inflight, it)
			}
			if _, err := up.Write(it.raw); err != nil {
				c.f.untrack(up)
				if it.replies == 0 {
					return nil
				}
				continue // the reader reports the failure
			}
		case r := <-replies:
			if r.err != nil {
				c.f.untrack(up)
				if ended && len(inflight) == 0 {
					return nil
				}
				return c.failover(inflight)
			}
			if len(inflight) == 0 {
				c.f.untrack(up)
				return nil // a reply to nothing: not our engine
			}
			it := inflight[0]
			inflight = inflight[1:]
			c.track(it, r.b)
			if _, err := c.client.Write(r.b); err != nil {
				c.f.untrack(up)
				return nil
			}
		}
	}
}

// track follows use, watch and ignore from their successful replies.
func (c *carrier) track(it carried, rep []byte) {
	switch {
	case it.op == codec.OpAuth && string(rep) == codec.Authenticated:
		c.auth = it.raw
	case it.op == codec.OpUse && bytes.HasPrefix(rep, []byte("USING ")):
		c.use = it.name
	case it.op == codec.OpWatch && bytes.HasPrefix(rep, []byte("WATCHING ")):
		for _, w := range c.watch {
			if w == it.name {
				return
			}
		}
		c.watch = append(c.watch, it.name)
	case it.op == codec.OpIgnore && bytes.HasPrefix(rep, []byte("WATCHING ")):
		for i, w := range c.watch {
			if w == it.name {
				c.watch = append(c.watch[:i], c.watch[i+1:]...)
				return
			}
		}
	}
}

// failover answers the commands in flight, finds the new leader, replays
// the client's tubes and returns the new connection (nil: none within the
// front's Wait; the commands that keep coming are refused).
func (c *carrier) failover(inflight []carried) net.Conn {
	var out []byte
	for range inflight {
		out = append(out, codec.InternalError...)
	}
	if _, err := c.client.Write(out); err != nil {
		return nil
	}
	c.f.log.Debug().Str("remote_addr", c.client.RemoteAddr().String()).Int("in_flight", len(inflight)).
		Msg("leader gone; carrying the connection to the next")
	ctx, cancel := context.WithTimeout(context.Background(), c.f.cfg.Wait)
	defer cancel()
	go func() {
		select {
		case <-c.f.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		up, gen := c.f.dial(ctx)
		if up == nil {
			c.refuseRest()
			return nil
		}
		if gen == c.gen && alive(up) {
			// The same engine answers: the leader is alive and closed the
			// connection on purpose (quit after failed auths, a client cut
			// off for sending too much): so does the front. (A dying
			// process may still accept for an instant: hence the probe.)
			c.f.untrack(up)
			return nil
		}
		// The same engine that failed before (not alive, so dying), or a
		// new one that did not take the session: wait, and dial again.
		if gen != c.gen && c.replay(up) == nil {
			c.gen = gen
			return up
		}
		c.f.untrack(up)
		select {
		case <-ctx.Done():
			c.refuseRest()
			return nil
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// replay makes up's session authenticated, using and watching as the
// client's was.
func (c *carrier) replay(up net.Conn) error {
	var req []byte
	n := 0
	if c.auth != nil {
		req = append(req, c.auth...)
		n++
	}
	if c.use != "default" {
		req = append(append(append(req, "use "...), c.use...), "\r\n"...)
		n++
	}
	hasDefault := false
	for _, w := range c.watch {
		if w == "default" {
			hasDefault = true
			continue
		}
		req = append(append(append(req, "watch "...), w...), "\r\n"...)
		n++
	}
	if !hasDefault {
		req = append(req, "ignore default\r\n"...)
		n++
	}
	if n == 0 {
		return nil
	}
	_ = up.SetDeadline(time.Now().Add(c.f.cfg.Wait))
	defer func() { _ = up.SetDeadline(time.Time{}) }()
	if _, err := up.Write(req); err != nil {
		return err
	}
	r := bufio.NewReaderSize(up, 256)
	for ; n > 0; n-- {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		if line != codec.Authenticated && !strings.HasPrefix(line, "USING ") && !strings.HasPrefix(line, "WATCHING ") {
			return errors.New("replay: unexpected reply " + strconv.Quote(line))
		}
	}
	if r.Buffered() > 0 {
		return errors.New("replay: unexpected bytes")
	}
	return nil
}

// refuseRest answers the commands still coming with INTERNAL_ERROR until
// the client has been quiet for refuseQuiet; then the connection closes.
func (c *carrier) refuseRest() {
	for {
		select {
		case it, ok := <-c.cmds:
			if !ok || it.eof || it.replies == 0 {
				return
			}
			if _, err := c.client.Write([]byte(codec.InternalError)); err != nil {
				return
			}
		case <-time.After(refuseQuiet):
			return
		}
	}
}

// readReplies frames the leader's replies: a line, and for RESERVED,
// FOUND and OK the body that follows. It ends with the read error, or
// when done closes.
func readReplies(up net.Conn, out chan<- reply, done <-chan struct{}) {
	r := bufio.NewReaderSize(up, 64<<10)
	send := func(x reply) bool {
		select {
		case out <- x:
			return true
		case <-done:
			return false
		}
	}
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			send(reply{err: errOr(err)})
			return
		}
		b := append([]byte(nil), line...)
		if size, ok := bodySize(b); ok {
			body := make([]byte, size+2)
			if _, err := io.ReadFull(r, body); err != nil {
				send(reply{err: errOr(err)})
				return
			}
			b = append(b, body...)
		}
		if !send(reply{b: b}) {
			return
		}
	}
}

func errOr(err error) error {
	if err == nil {
		return io.EOF
	}
	return err
}

// bodySize returns the size of the body that follows reply line b.
func bodySize(b []byte) (int, bool) {
	if !bytes.HasPrefix(b, []byte("RESERVED ")) && !bytes.HasPrefix(b, []byte("FOUND ")) && !bytes.HasPrefix(b, []byte("OK ")) {
		return 0, false
	}
	f := bytes.Fields(b)
	n, err := strconv.Atoi(string(f[len(f)-1]))
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// alive reports whether the engine at the other end of up answers a
// harmless command (any reply line will do) within a second.
func alive(up net.Conn) bool {
	_ = up.SetDeadline(time.Now().Add(time.Second))
	if _, err := io.WriteString(up, "list-tube-used\r\n"); err != nil {
		return false
	}
	_, err := bufio.NewReader(up).ReadString('\n')
	return err == nil
}
