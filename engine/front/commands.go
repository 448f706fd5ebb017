package front

import (
	"io"
	"net"

	"github.com/stalkd/stalkd/codec"
)

// The client's side of a carried connection: its bytes are read and framed
// into commands, each with the bytes to forward and what the front tracks
// of it. The front frames with codec's framing-only decoder - the engine's
// state machine, bounds and errors, without copying a body - so it knows
// where each command ends and how many replies it is owed, and forwards the
// bytes it read: a put body costs no allocation of its own.
//
// The front's memory per connection is bounded whatever the client sends,
// as a single node's is. A command of up to holdMax bytes (every put of the
// default maximum job size) is held until it is whole and forwarded in one
// write; a longer one - a put announcing a larger body, accepted or too big
// (JOB_TOO_BIG swallows size+2 bytes), or an over-long line without its
// CRLF - is streamed to the leader in pieces as its bytes arrive, never held
// whole. The leader's engine then sees exactly the client's bytes, and
// frames them as the front did: it swallows what a single node swallows,
// answers what a single node answers, when a single node would, and counts
// the command in its statistics (cmd-put) as a single node does. (A canonical
// stand-in - the put line and a body the leader swallows - would save the
// leader the bytes, but a too-big stand-in still needs more than the
// maximum job size of them, and it would be a put the leader accepts if its
// -z were larger than the front's.)

// Read buffers per carried connection: small while it is idle (a cluster
// node may hold thousands), larger for a client that keeps them full.
const (
	minReadBuf   = 4 << 10
	maxReadBuf   = 64 << 10
	replyReadBuf = 8 << 10
)

// holdMax is the longest command the front holds whole before forwarding
// it: a put of the default maximum job size (its line, body and CRLF).
// Longer ones are streamed in pieces (see carried).
const holdMax = codec.LineMax + codec.DefaultMaxJobSize + 2

// carried is one client command, or a piece of one: its bytes, and what the
// front tracks. A command longer than holdMax is carried in pieces, one per
// read that brings its bytes: the first (open, not cont) is owed the
// command's one reply, the others (cont) continue it, the last of them
// without open.
type carried struct {
	raw     []byte
	op      codec.Op
	name    string // use, watch, ignore
	replies int    // 0 (quit, end of input, a piece after the first) or 1
	eof     bool   // the client half-closed (no bytes)
	open    bool   // a piece: the command goes on in a later piece
	cont    bool   // a piece that goes on with a command an earlier piece began
}

// quits reports whether it ends the client's input: quit, or end of input.
func (it *carried) quits() bool { return it.eof || (it.op == codec.OpQuit && it.replies == 0) }

// cmdReader reads one client's input and frames it into batches of
// commands. It belongs to the goroutine that runs readCommands.
//
// Memory: buf[:keep] holds bytes received but not framed yet (fewer than
// codec.LineMax: the decoder consumes everything else); pend holds the
// consumed bytes of a command that began in an earlier read and is held
// whole (a put of at most holdMax bytes whose body is still arriving),
// sized for the whole put once its line is in. A longer command is not
// held: its consumed bytes leave in a piece with each batch (streaming).
// The commands of a batch own their bytes: one allocation per batch for
// all of them (the first may complete pend instead), none per command. So a
// connection's reader holds at most maxReadBuf + holdMax bytes, and each
// batch it hands on at most about as much, however long a command is.
type cmdReader struct {
	d         codec.Decoder
	buf       []byte
	keep      int
	pend      []byte
	streaming bool   // the unfinished command is streamed: its first piece has left
	primed    []byte // input received before the first read (a Handoff's), framed first
	skip      int    // bytes of input still to drop unread (the end of a put the engine had begun)
	last      int    // the previous batch's length: the next one's capacity
}

// newCmdReader returns a reader whose input starts with in (received
// earlier, by the engine of a Handoff; the reader owns it), of which - and
// of what follows - the first skip bytes are dropped unread.
func newCmdReader(maxJobSize uint32, in []byte, skip int) *cmdReader {
	return &cmdReader{d: codec.MakeFramingDecoder(maxJobSize), buf: make([]byte, minReadBuf),
		primed: in, skip: skip}
}

// readCommands frames the client's commands and hands them to run, a
// batch per read (one channel send), until end of input, quit or an error;
// it closes cmds. The input starts with in, of which - and of what follows
// - the first skip bytes are dropped unread (see newCmdReader).
func (c *carrier) readCommands(in []byte, skip int) {
	defer close(c.cmds)
	r := newCmdReader(c.f.cfg.MaxJobSize, in, skip)
	for {
		batch, quit, err := r.next(c.client)
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

// next reads conn once (the primed input instead, a buffer at a time,
// while there is some) and returns the commands completed by what arrived,
// with a piece of a long command that goes on, whether quit was among them
// (the input after it is never looked at), and the read's error.
func (r *cmdReader) next(conn net.Conn) (batch []carried, quit bool, err error) {
	var n int
	if r.primed != nil {
		n = copy(r.buf[r.keep:], r.primed)
		if r.primed = r.primed[n:]; len(r.primed) == 0 {
			r.primed = nil
		}
	} else {
		n, err = conn.Read(r.buf[r.keep:])
	}
	data := r.buf[:r.keep+n]
	full := r.keep+n == len(r.buf)
	if r.skip > 0 {
		k := min(r.skip, len(data))
		data, r.skip = data[k:], r.skip-k
	}
	batch, used, quit := r.frame(data)
	if quit {
		return batch, true, err
	}
	rest := data[used:] // fewer than codec.LineMax bytes
	if full && len(r.buf) < maxReadBuf {
		grown := make([]byte, 2*len(r.buf)) // a busy client: read more at a time
		r.keep = copy(grown, rest)
		r.buf = grown
	} else {
		r.keep = copy(r.buf, rest)
	}
	return batch, false, err
}

// frame frames the commands that in (the input not framed yet) completes,
// in order, and returns them with how many bytes of in were consumed and
// whether the last is quit. The batch owns its bytes (see own); consumed
// bytes of an unfinished command go to pend, or, for a command longer than
// holdMax, leave as a piece at the end of the batch.
func (r *cmdReader) frame(in []byte) (batch []carried, used int, quit bool) {
	start := 0 // where the command being framed began in in (or in pend, before it)
	for !quit {
		cmd, k, ok := r.d.Decode(in[used:])
		used += k
		if !ok {
			break
		}
		if cmd.Op == codec.OpPutHeader && cmd.Err == nil {
			// The body follows (or, too big, is swallowed and then
			// JOB_TOO_BIG comes): one reply for the line and the body.
			// A line refused at once (Err set) is owed its own reply.
			continue
		}
		if batch == nil {
			batch = make([]carried, 0, min(max(r.last, 1), 64))
		}
		it := carried{raw: in[start:used], op: cmd.Op, replies: 1}
		switch {
		case r.streaming: // the last piece of a long command, owed nothing more
			it = carried{raw: it.raw, cont: true}
			r.streaming = false
		case cmd.Err == nil:
			switch cmd.Op {
			case codec.OpUse, codec.OpWatch, codec.OpIgnore:
				it.name = string(cmd.Name)
			case codec.OpQuit:
				it.replies = 0
				quit = true
			}
		}
		batch = append(batch, it)
		start = used
	}
	if rest := in[start:used]; len(rest) > 0 && !quit && !r.hold(len(rest)) {
		// A long command goes on: what arrived of it leaves now. Its first
		// piece is owed the command's reply.
		it := carried{raw: rest, replies: 1, open: true}
		if r.d.InBody() {
			it.op = codec.OpPut // accepted: its body is arriving
		}
		if r.streaming {
			it = carried{raw: rest, open: true, cont: true}
		}
		r.streaming = true
		if batch == nil {
			batch = make([]carried, 0, 1)
		}
		batch = append(batch, it)
		start = used
	}
	if len(batch) > 0 {
		r.last = len(batch)
	}
	r.own(batch, in[start:used])
	return batch, used, quit
}

// hold reports whether the unfinished command, of which more bytes were
// consumed, is held whole in pend: a put whose line, body and CRLF come to
// at most holdMax bytes. Anything else consumed unfinished - a longer put,
// a too-big body being swallowed, an over-long line being discarded - is
// streamed.
func (r *cmdReader) hold(more int) bool {
	if r.streaming || !r.d.InBody() {
		return false
	}
	return len(r.pend)+more+r.d.BodyLeft() <= holdMax
}

// own gives the batch's commands, views of the input so far, bytes of
// their own: the first completes pend if it began in an earlier read; the
// others share one allocation of exactly their size. rest, the consumed
// start of a held command not finished yet, is appended to pend, which is
// allocated once for the whole command when the decoder knows its size (a
// put with its body pending, at most holdMax bytes).
func (r *cmdReader) own(batch []carried, rest []byte) {
	i := 0
	if r.pend != nil && len(batch) > 0 {
		raw := append(r.pend, batch[0].raw...)
		batch[0].raw, r.pend, i = raw[:len(raw):len(raw)], nil, 1
	}
	size := 0
	for _, it := range batch[i:] {
		size += len(it.raw)
	}
	if size > 0 {
		blob := make([]byte, 0, size)
		for j := i; j < len(batch); j++ {
			s := len(blob)
			blob = append(blob, batch[j].raw...)
			batch[j].raw = blob[s:len(blob):len(blob)]
		}
	}
	if len(rest) > 0 {
		if r.pend == nil {
			r.pend = make([]byte, 0, len(rest)+r.d.BodyLeft())
		}
		r.pend = append(r.pend, rest...)
	}
}
