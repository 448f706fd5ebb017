package front

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"slices"

	"github.com/stalkd/stalkd/codec"
)

// The leader's side of a carried connection: its replies are framed (a
// line, and the body of RESERVED, FOUND and OK), paired with the commands in
// flight, followed for the session's tubes, and written to the client.

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

// track follows use, watch and ignore from their successful replies.
func (c *carrier) track(it carried, rep []byte) {
	switch {
	case it.op == codec.OpAuth && string(rep) == codec.Authenticated:
		c.auth = bytes.Clone(it.raw) // not the batch's whole buffer
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
