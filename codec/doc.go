// Package codec turns the bytes of a beanstalk connection into commands and commands' results
// into reply bytes. It does no I/O and has no dependencies beyond the standard library.
//
// # Decoding
//
// A Decoder is an incremental, resumable state machine over one connection's byte stream. Give
// it everything received and not yet consumed; it returns at most one Command and how many
// bytes it consumed. Drop exactly those bytes, and call again until it asks for more input:
//
//	d := codec.NewDecoder(maxJobSize) // one per connection
//	...
//	// on every read event, with in = all unconsumed bytes (gnet: c.Peek(-1)):
//	for {
//		cmd, n, ok := d.Decode(in)
//		if ok {
//			handle(cmd) // copy cmd.Name here if it must outlive the input bytes
//		}
//		in = in[n:] // gnet: c.Discard(n)
//		if !ok {
//			break // need more input; fewer than LineMax bytes are left unconsumed
//		}
//	}
//
// Note that n can be positive when ok is false: body bytes are copied into the pending body as
// they arrive, a too-big body is swallowed as it arrives, and the windows of an over-long line
// are discarded. A caller therefore never holds more than LineMax-1 bytes for the decoder, even
// while a 1 GiB body streams in.
//
// Handling a Command follows one rule: count Op unless it is OpNone, then reply Err if it is
// set, else execute Op:
//
//	if cmd.Op != codec.OpNone {
//		stats.count(cmd.Op) // the reference's cmd-* counters
//	}
//	if cmd.Err != nil {
//		out = codec.AppendError(out, cmd.Err.(codec.WireError))
//		return
//	}
//	switch cmd.Op { ... }
//
// A put arrives as two events: OpPutHeader when its line is accepted (the reference spends the
// job id here), then OpPut with the body, or with ErrExpectedCRLF. An OpPutHeader with TooBig
// set is followed instead by an ErrJobTooBig event once Size+2 bytes have been swallowed.
// InBody reports a put whose body is still arriving, for accounting when the connection
// closes.
//
// # Ownership
//
// Views inside, copies at the edge. Command.Name is a view into the slice passed to Decode,
// valid until the caller drops or overwrites those bytes (after gnet's Discard it is gone).
// Command.Body is the only copy a job body gets: the decoder allocates it at the put line (the
// data alone, Size bytes: the CRLF after it is checked as it arrives, never stored), fills it
// as bytes arrive and hands it over; the caller owns it from then on. Decode never
// retains its input. Apart from that body buffer, decoding allocates nothing.
//
// # Framing only
//
// A program that forwards commands rather than executing them (a cluster member's client
// front) uses NewFramingDecoder: the same events, consumed counts, bounds and errors on the
// same bytes, however split, but the body of a put is counted and its CRLF checked, never
// copied: OpPut carries Body nil, and a framing decoder allocates nothing (frame.go).
//
// # Compatibility
//
// The decoder reproduces the reference server (beanstalkd 1.12, with 1.13's
// reserve-with-timeout) byte for byte, quirks included: a line ends only at the first '\r' of
// its 224-byte window, and only if '\n' follows; an over-long line gets one BAD_FORMAT after
// its end, with the known window-edge artefact; prefixes are matched in the reference's order
// ("quitxyz" quits, "pause-tubefoo 10" pauses foo); a too-big put swallows exactly Size+2
// bytes even after trailing garbage; kick reads its count with C strtoul. See the tests for
// each behaviour, most of them probed on the reference binary.
//
// # Encoding
//
// The Append functions write one reply at the end of a caller's buffer, so a server gathers
// the replies of a pipelined batch and writes them once. The fixed one-word replies are string
// constants with their CRLF (Deleted, NotFound, ...).
//
// # Concurrency
//
// A Decoder belongs to one connection and must not be used concurrently. Everything else in
// the package is stateless and safe for concurrent use.
package codec
