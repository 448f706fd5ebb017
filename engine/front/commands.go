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

// cmdReader reads one client's input and frames it into batches of
// commands. It belongs to the goroutine that runs readCommands.
//
// Memory: buf[:keep] holds bytes received but not framed yet (fewer than
// codec.LineMax: the decoder consumes everything else); pend holds the
// consumed bytes of a command that began in an earlier read (a put whose
// body is still arriving), sized for the whole put once its line is in.
// The commands of a batch own their bytes: one allocation per batch for
// all of them (the first may complete pend instead), none per command.
type cmdReader struct {
	d      codec.Decoder
	buf    []byte
	keep   int
	pend   []byte
	primed []byte // input received before the first read (a Handoff's), framed first
	skip   int    // bytes of input still to drop unread (the end of a put the engine had begun)
	last   int    // the previous batch's length: the next one's capacity
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

// next reads conn once (the primed input instead, the first time) and
// returns the commands completed by what arrived, whether quit was among
// them (the input after it is never looked at), and the read's error.
func (r *cmdReader) next(conn net.Conn) (batch []carried, quit bool, err error) {
	var data []byte
	full := false
	if r.primed != nil {
		data, r.primed = r.primed, nil
	} else {
		var n int
		n, err = conn.Read(r.buf[r.keep:])
		data = r.buf[:r.keep+n]
		full = r.keep+n == len(r.buf)
	}
	if r.skip > 0 {
		k := min(r.skip, len(data))
		data, r.skip = data[k:], r.skip-k
	}
	batch, used, quit := r.frame(data)
	if quit {
		return batch, true, err
	}
	if full && len(r.buf) < maxReadBuf {
		r.buf = make([]byte, 2*len(r.buf)) // a busy client: read more at a time
	}
	r.keep = copy(r.buf, data[used:]) // fewer than codec.LineMax bytes
	return batch, false, err
}

// frame frames the commands that in (the input not framed yet) completes,
// in order, and returns them with how many bytes of in were consumed and
// whether the last is quit. The batch owns its bytes (see own); consumed
// bytes of an unfinished command go to pend.
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
		start = used
	}
	if len(batch) > 0 {
		r.last = len(batch)
	}
	r.own(batch, in[start:used])
	return batch, used, quit
}

// own gives the batch's commands, views of the input so far, bytes of
// their own: the first completes pend if it began in an earlier read; the
// others share one allocation of exactly their size. rest, the consumed
// start of a command not finished yet, is appended to pend, which is
// allocated once for the whole command when the decoder knows its size (a
// put with its body pending).
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
