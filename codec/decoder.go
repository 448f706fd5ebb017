package codec

import "bytes"

// state is what the decoder expects next.
type state uint8

const (
	stateLine     state = iota // a command line
	stateBody                  // the rest of an accepted put body
	stateSkipBody              // the rest of a too-big put body, to be swallowed
	stateSkipLine              // the end of an over-long line, to be discarded
)

// Decoder decodes one connection's byte stream into Commands. It is incremental and
// resumable: feed it whatever bytes have arrived, in any pieces, and it yields the same
// commands. It never retains the input slice; the only bytes it holds are a pending put body,
// copied in as it arrives (the job data only: its CRLF is checked as it arrives, not kept).
//
// A Decoder is not safe for concurrent use: one connection, one goroutine (or event loop).
type Decoder struct {
	maxJob uint32
	frame  bool // framing-only mode (frame.go): body bytes are counted, never copied
	state  state
	skip   uint64  // stateSkipBody: bytes still to swallow
	cr     bool    // stateSkipLine: the last byte discarded was '\r'
	quiet  bool    // stateSkipBody: end without a JOB_TOO_BIG event (DropBody)
	body   []byte  // stateBody: the pending job data; grows to len Size exactly (see growBody)
	filled int     // stateBody: bytes of data received so far
	want   int     // stateBody: Size
	tail   int     // stateBody: bytes of the CRLF after the data received so far (0-2)
	trail  [2]byte // stateBody: those bytes, checked once both are in (finishBody)
	put    Command // stateBody: the put header fields, repeated on the OpPut event
}

// NewDecoder returns a decoder for a fresh connection. maxJobSize is the largest body a put
// may announce (the reference's -z); a larger one is answered with JOB_TOO_BIG.
func NewDecoder(maxJobSize uint32) *Decoder {
	return &Decoder{maxJob: maxJobSize}
}

// MakeDecoder is NewDecoder as a value, to embed in a larger per-connection struct (one
// allocation instead of two). Copy it only before first use.
func MakeDecoder(maxJobSize uint32) Decoder {
	return Decoder{maxJob: maxJobSize}
}

// Decode looks at in (all bytes received and not yet consumed, in order) and returns the next
// command.
//
// n is how many bytes of in were consumed: the caller must drop exactly those n bytes before
// the next call (e.g. gnet Discard(n)) and pass the rest again plus anything new. ok=false
// means more input is needed; n may still be > 0 (body bytes absorbed into the pending body
// buffer, swallowed JOB_TOO_BIG bytes, or discarded windows of an over-long line), and the
// caller must drop them too. After ok=false fewer than LineMax bytes remain unconsumed, so the
// caller never buffers more than that of an unfinished line.
//
// Command.Name is a view into in; Command.Body is a fresh buffer owned by the caller.
// Decode never retains in.
func (d *Decoder) Decode(in []byte) (cmd Command, n int, ok bool) {
	for {
		rest := in[n:]
		switch d.state {
		case stateBody:
			k := 0
			if d.filled < d.want {
				if d.frame { // framing-only: count the data, keep none of it
					k = min(len(rest), d.want-d.filled)
				} else {
					d.growBody(len(rest))
					k = copy(d.body[d.filled:], rest)
				}
				d.filled += k
			}
			if d.filled == d.want {
				t := copy(d.trail[d.tail:], rest[k:])
				d.tail += t
				k += t
			}
			n += k
			if d.tail < len(d.trail) {
				return Command{}, n, false
			}
			return d.finishBody(), n, true

		case stateSkipBody:
			k := uint64(len(rest))
			if k > d.skip {
				k = d.skip
			}
			d.skip -= k
			n += int(k)
			if d.skip > 0 {
				return Command{}, n, false
			}
			d.state = stateLine
			if d.quiet {
				d.quiet = false
				continue
			}
			return Command{Err: errJobTooBig}, n, true

		default: // stateLine, stateSkipLine
			if d.cr && len(rest) > 0 {
				// The over-long line's CRLF straddles the window edge: the line
				// ends here. (The reference misses this CRLF and swallows the
				// next command as the end of the bad line; we do not.)
				d.cr = false
				if rest[0] == '\n' {
					d.state = stateLine
					return Command{Err: errBadFormat}, n + 1, true
				}
			}
			line, m, found := scanLine(rest)
			if found {
				n += m
				if d.state == stateSkipLine {
					d.state = stateLine
					return Command{Err: errBadFormat}, n, true
				}
				parseLine(&cmd, line, d.maxJob)
				d.accept(&cmd)
				return cmd, n, true
			}
			if len(rest) < LineMax {
				return Command{}, n, false
			}
			// A full window without a line end: discard it and keep discarding windows
			// until one holds a line end, or a CRLF straddles two windows, then answer
			// BAD_FORMAT once.
			n += LineMax
			d.cr = rest[LineMax-1] == '\r'
			d.state = stateSkipLine
		}
	}
}

// scanLine finds the end of the line at the start of b the way the reference does: it looks
// for the first '\r' among the first min(len(b), LineMax)-1 bytes, and that '\r' ends the line
// only if '\n' follows it. A bare '\n' never ends a line, and a stray '\r' hides any later
// CRLF in the same window. It returns the line without CRLF and its length with CRLF.
func scanLine(b []byte) (line []byte, n int, found bool) {
	w := len(b)
	if w > LineMax {
		w = LineMax
	}
	if w < 2 {
		return nil, 0, false
	}
	i := bytes.IndexByte(b[:w-1], '\r')
	if i < 0 || b[i+1] != '\n' {
		return nil, 0, false
	}
	return b[:i], i + 2, true
}

// accept switches state after an accepted put line.
func (d *Decoder) accept(c *Command) {
	if c.Op != OpPutHeader || c.Err != nil {
		return
	}
	if c.TooBig {
		d.state = stateSkipBody
		d.skip = uint64(c.Size) + 2
		return
	}
	d.state = stateBody
	d.want = int(c.Size)
	if !d.frame {
		d.body = make([]byte, min(d.want, eagerBody))
	}
	d.filled, d.tail = 0, 0
	d.put = Command{Pri: c.Pri, Delay: c.Delay, TTR: c.TTR, Size: c.Size}
}

// eagerBody is the most a put line makes the decoder allocate before its body
// arrives: bodies up to it (the default -z among them) are allocated once,
// exactly. Larger bodies grow as bytes come in, so that a client announcing a
// 1 GiB put and sending nothing holds 1 MiB, not 1 GiB.
const eagerBody = 1 << 20

// growBody makes room for up to more further bytes of the pending job data,
// doubling (so a large body is copied less than twice in all) and never past
// its final size, Size, which it reaches exactly: a 65535-byte body is one
// 65535-byte allocation (64 KiB of pages), its CRLF kept nowhere.
func (d *Decoder) growBody(more int) {
	need := min(d.filled+more, d.want)
	if need <= len(d.body) {
		return
	}
	size := min(max(2*len(d.body), need), d.want)
	grown := make([]byte, size)
	copy(grown, d.body[:d.filled])
	d.body = grown
}

// finishBody hands the completed body over and returns to reading lines.
func (d *Decoder) finishBody() Command {
	c := d.put
	c.Op = OpPut
	body, trail := d.body, d.trail
	d.body, d.filled, d.want, d.tail, d.state = nil, 0, 0, 0, stateLine
	if trail != [2]byte{'\r', '\n'} {
		c.Err = errExpectedCRLF // no resync: the next line starts right after the two bytes
		return c
	}
	c.Body = body
	return c
}

// DropBody makes the decoder swallow the body of the put line it just returned (accepted or
// too big) without allocating it and without an event at its end: the caller has refused the
// put already (an unauthenticated client), and its body must not be read as commands. It does
// nothing if no put body is pending.
func (d *Decoder) DropBody() {
	switch d.state {
	case stateBody:
		d.skip = uint64(d.BodyLeft())
		d.body, d.filled, d.want, d.tail = nil, 0, 0, 0
	case stateSkipBody:
	default:
		return
	}
	d.state, d.quiet = stateSkipBody, true
}

// BodyLeft is how many bytes of the pending put body (its CRLF included) have not arrived
// yet: 0 unless InBody.
func (d *Decoder) BodyLeft() int {
	if d.state != stateBody {
		return 0
	}
	return d.want - d.filled + len(d.trail) - d.tail
}

// BodyRooms returns where the next bytes of the pending put body go, with room for at least
// one and at most max further bytes: data is the unfilled part of the job data's buffer (which
// grows as it does for Decode), never reaching past the data; once the data is complete, a
// small buffer for what is still due of the CRLF after it. When data ends the job data, trail
// is the room for the CRLF after it, so that a caller reading with one vectored read (readv)
// fills data, then trail; trail is nil otherwise. Both are nil unless InBody. A caller that
// reads the body from its source straight into these buffers (skipping a copy through its own
// input buffer) must have consumed everything it passed to Decode first, and reports the
// bytes it wrote, in order, with Absorb before any other call.
//
// A framing-only decoder has no body buffer: BodyRooms returns nil, nil.
func (d *Decoder) BodyRooms(max int) (data, trail []byte) {
	if d.state != stateBody || max <= 0 || d.frame {
		return nil, nil
	}
	if d.filled < d.want {
		d.growBody(max)
		data = d.body[d.filled:min(len(d.body), d.filled+max)]
		if d.filled+len(data) == d.want {
			trail = d.trail[d.tail:]
		}
		return data, trail
	}
	return d.trail[d.tail:min(len(d.trail), d.tail+max)], nil
}

// Absorb takes n bytes written at the start of BodyRooms' rooms, in order, as received. Once
// the body is complete it returns the put, exactly as Decode would have (ok); until then ok is
// false.
func (d *Decoder) Absorb(n int) (cmd Command, ok bool) {
	if d.state != stateBody || n <= 0 {
		return Command{}, false
	}
	if d.filled < d.want {
		k := min(n, d.want-d.filled)
		if d.filled+k > len(d.body) || n-k > len(d.trail)-d.tail {
			panic("codec: Absorb past the room BodyRooms gave")
		}
		d.filled += k
		if n -= k; n == 0 {
			return Command{}, false // the CRLF is still due
		}
	}
	if d.tail+n > len(d.trail) {
		panic("codec: Absorb past the room BodyRooms gave")
	}
	d.tail += n
	if d.tail < len(d.trail) {
		return Command{}, false
	}
	return d.finishBody(), true
}

// InBody reports whether a put line was accepted and its body is not complete yet (possibly
// with no body byte received so far). The reference has already spent the job's id then, so a
// server uses this for accounting when the connection closes mid-body. A too-big body being
// swallowed does not count.
func (d *Decoder) InBody() bool { return d.state == stateBody }

// Idle reports whether the decoder holds nothing between commands: no pending body, nothing
// being swallowed. An idle decoder may be Reset and reused for another connection without
// changing what the first one decodes next.
func (d *Decoder) Idle() bool { return d.state == stateLine }

// Reset returns the decoder to its initial state, dropping any pending body, so it can serve
// a new connection. The maximum job size and the mode (full or framing-only) are kept.
func (d *Decoder) Reset() {
	*d = Decoder{maxJob: d.maxJob, frame: d.frame}
}
