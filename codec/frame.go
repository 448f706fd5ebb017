package codec

// Framing-only mode. A program that forwards a connection's commands to a
// server elsewhere (a cluster member's client front carries them to the
// leader) must know where each command and its body end, what the command
// is and whether it is refused, exactly as the server that executes it will
// see them; it has no use for the job body itself, whose bytes it forwards
// from its own buffer. A decoder in framing-only mode is that: the same state
// machine as a full one, with the same events, the same consumed counts, the
// same hard bounds (LineMax, the maximum job size, JOB_TOO_BIG swallowing)
// and the same errors (BAD_FORMAT, UNKNOWN_COMMAND, EXPECTED_CRLF,
// JOB_TOO_BIG, the window-edge rules), except that it never copies or keeps
// a body: body bytes are counted as they are consumed, the CRLF after them is
// checked, and the OpPut event carries Body nil. A framing-only decoder
// therefore allocates nothing at all.
//
//	d := codec.NewFramingDecoder(maxJobSize)
//	for {
//		cmd, n, ok := d.Decode(in) // exactly as a full decoder, but cmd.Body is nil
//		...
//	}

// NewFramingDecoder returns a decoder in framing-only mode for a fresh
// connection (see NewDecoder for maxJobSize). Its events are those of
// NewDecoder's decoder on the same bytes, however split, except that an
// OpPut event has Body nil. BodyRooms gives no room (nil, nil): the body is
// not stored anywhere, so it cannot be read into the decoder.
func NewFramingDecoder(maxJobSize uint32) *Decoder {
	return &Decoder{maxJob: maxJobSize, frame: true}
}

// MakeFramingDecoder is NewFramingDecoder as a value, to embed in a larger
// per-connection struct. Copy it only before first use.
func MakeFramingDecoder(maxJobSize uint32) Decoder {
	return Decoder{maxJob: maxJobSize, frame: true}
}

// FramingOnly reports whether d is in framing-only mode (NewFramingDecoder).
func (d *Decoder) FramingOnly() bool { return d.frame }
