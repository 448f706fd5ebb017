package front

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
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

// Read buffers per carried connection: small while it is idle (a cluster
// node may hold thousands), larger for a client that keeps them full.
const (
	minReadBuf   = 4 << 10
	maxReadBuf   = 64 << 10
	replyReadBuf = 8 << 10
)

// carried is one client command: its bytes, and what the front tracks.
type carried struct {
	raw     []byte
	op      codec.Op
	name    string // use, watch, ignore
	replies int    // 0 (quit, end of input) or 1
	eof     bool   // the client half-closed (no bytes)
}

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

// readCommands frames the client's commands and hands them to run, a
// batch per read (one channel send, one allocation for their bytes), until
// end of input or an error; it closes cmds. The input starts with in
// (received earlier, by the engine of a Handoff), of which - and of what
// follows - the first skip bytes are dropped unread (the end of a put
// the engine had begun).
func (c *carrier) readCommands(in []byte, skip int) {
	defer close(c.cmds)
	d := codec.NewDecoder(c.f.cfg.MaxJobSize)
	var pend []byte                 // the bytes of a command begun in an earlier read
	buf := make([]byte, minReadBuf) // doubles, up to maxReadBuf, while reads fill it
	primed := len(in) > 0           // decode what is in before the first read
	for {
		var n int
		var err error
		if !primed {
			n, err = c.client.Read(buf)
			in = append(in, buf[:n]...)
			if n == len(buf) && len(buf) < maxReadBuf {
				buf = make([]byte, 2*len(buf)) // a busy client: read more at a time
			}
		}
		primed = false
		if skip > 0 {
			k := min(skip, len(in))
			in, skip = in[k:], skip-k
		}
		// Every byte consumed in this read goes to blob (its capacity is
		// enough: the decoder consumes at most in), and each command
		// finished here is a view of it; the items own blob from now on.
		blob := make([]byte, 0, len(in))
		var batch []carried
		start, quit := 0, false
		for !quit {
			cmd, k, ok := d.Decode(in)
			blob = append(blob, in[:k]...)
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
			raw := blob[start:len(blob):len(blob)]
			if pend != nil {
				raw, pend = append(pend, raw...), nil
			}
			start = len(blob)
			it := carried{raw: raw, op: cmd.Op, replies: 1}
			if cmd.Err == nil {
				switch cmd.Op {
				case codec.OpUse, codec.OpWatch, codec.OpIgnore:
					it.name = string(cmd.Name)
				case codec.OpQuit:
					it.replies = 0
					quit = true
				}
			}
			batch = append(batch, it)
		}
		if start < len(blob) {
			pend = append(pend, blob[start:]...)
		}
		if len(in) == 0 {
			in = in[:0:0] // let the read buffer's old backing array go
		}
		if len(batch) > 0 {
			c.cmds <- batch
		}
		if quit {
			return
		}
		if err != nil {
			if err == io.EOF {
				c.cmds <- []carried{{eof: true}}
			}
			return
		}
	}
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
		last := 0 // replies owed by the last command sent
		c.mu.Lock()
		for _, it := range batch {
			if it.eof {
				ended = true
				break
			}
			if it.op == codec.OpQuit && it.replies == 0 {
				ended = true
			}
			if it.replies > 0 {
				c.inflight = append(c.inflight, it)
			}
			wbuf = append(wbuf, it.raw...)
			last = it.replies
		}
		c.mu.Unlock()
		if len(wbuf) > 0 {
			if _, err := up.Write(wbuf); err != nil {
				c.f.untrack(up)
				if last == 0 {
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
	return c.failover(inflight)
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

// refuseRest answers the commands still coming (c.first first) with
// INTERNAL_ERROR until the client has been quiet for refuseQuiet; then the
// connection closes.
func (c *carrier) refuseRest() {
	first := c.first
	c.first = nil
	if first != nil && !c.refuse(first) {
		return
	}
	for {
		select {
		case batch, ok := <-c.cmds:
			if !ok || !c.refuse(batch) {
				return
			}
		case <-time.After(refuseQuiet):
			return
		}
	}
}

// refuse answers a batch of commands INTERNAL_ERROR each, and reports
// whether the conversation goes on (no quit, no end of input, no failed
// write).
func (c *carrier) refuse(batch []carried) bool {
	var out []byte
	for _, it := range batch {
		if it.eof || it.replies == 0 {
			_, _ = c.client.Write(out)
			return false
		}
		out = append(out, codec.InternalError...)
	}
	_, err := c.client.Write(out)
	return err == nil
}

// readReplies frames the leader's replies (a line, and for RESERVED,
// FOUND and OK the body that follows), pairs each with the oldest command
// in flight, follows the session's tubes from them, and writes them to the
// client: the replies already buffered as one write, before it waits for
// more. It ends, setting c.rend and closing done, when up fails or closes,
// when writing to the client fails, or at a reply to no command.
func (c *carrier) readReplies(up net.Conn, done chan<- struct{}) {
	defer close(done)
	r := bufio.NewReaderSize(up, replyReadBuf) // a body larger than it is read past it, into out
	var out []byte
	flush := func() bool {
		if len(out) == 0 {
			return true
		}
		_, err := c.client.Write(out)
		out = out[:0]
		if cap(out) > 64<<10 {
			out = nil // a large body passed: do not keep its buffer
		}
		return err == nil
	}
	for {
		if len(out) > 0 && !replyBuffered(r) && !flush() {
			c.rend = errClientGone
			return
		}
		line, err := r.ReadSlice('\n')
		if err != nil {
			flush()
			c.rend = errOr(err)
			return
		}
		start := len(out)
		out = append(out, line...)
		if size, ok := codec.ReplyBodySize(line); ok {
			n := len(out)
			out = slices.Grow(out, size+2)[:n+size+2]
			if _, err := io.ReadFull(r, out[n:]); err != nil {
				out = out[:start]
				flush()
				c.rend = errOr(err)
				return
			}
		}
		c.mu.Lock()
		if len(c.inflight) == 0 {
			c.mu.Unlock()
			out = out[:start]
			flush()
			c.rend = errNotOurs
			return
		}
		it := c.inflight[0]
		c.inflight[0] = carried{}
		c.inflight = c.inflight[1:]
		if len(c.inflight) == 0 {
			c.inflight = c.inflight[:0:0]
		}
		c.mu.Unlock()
		c.track(it, out[start:])
	}
}

// replyBuffered reports whether a whole reply line (and its body, if any)
// is buffered in r, so that reading it will not wait.
func replyBuffered(r *bufio.Reader) bool {
	b, _ := r.Peek(r.Buffered())
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return false
	}
	size, ok := codec.ReplyBodySize(b[:i+1])
	return !ok || len(b) >= i+1+size+2
}

func errOr(err error) error {
	if err == nil {
		return io.EOF
	}
	return err
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
