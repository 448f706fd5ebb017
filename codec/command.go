package codec

// LineMax is the longest command line in bytes, CRLF included: the reference's LINE_BUF_SIZE
// (11+201+12). The decoder never needs more than LineMax-1 unconsumed bytes of an unfinished
// line, so a caller's input buffer stays bounded while it waits for a line end.
const LineMax = 224

// MaxTubeName is the longest tube name the protocol accepts.
const MaxTubeName = 200

// Command is one decoded event. It is a plain value: copy it freely. Its only reference into
// decoder input is Name (see below); Body is owned by the receiver.
type Command struct {
	// Op is the command to execute. It is OpNone when Err is set, except where the reference
	// counts the command in its cmd-* statistics although it replies with an error:
	//   - OpPutHeader with ErrBadFormat: the four numbers parsed but trailing garbage followed
	//     (the reference counts cmd-put before its garbage check; nothing is swallowed);
	//   - OpPauseTube with ErrBadFormat: the name run and the delay parsed but the name is
	//     invalid (starts with '-' or is longer than 200 bytes);
	//   - OpPut with ErrExpectedCRLF: the body arrived without its CRLF (the job id is spent).
	// A server therefore counts Op when it is not OpNone, and then, if Err is set, replies Err
	// instead of executing. When Err is set the argument fields are zero, except that the
	// OpPut/ErrExpectedCRLF event repeats the put's Pri, Delay, TTR and Size.
	Op Op

	// Err, when non-nil, is the reply to send instead of executing. It is always a WireError
	// (compare with ==, e.g. cmd.Err == codec.ErrBadFormat).
	Err error

	// Matched is the command whose prefix the line matched, set for every event decoded from a
	// command line, also when the arguments then fail to parse (it is what the reference names
	// in its -V log). It is OpNone for UNKNOWN_COMMAND, for a line with a NUL byte (rejected
	// before matching), for an over-long line and for body events. For a put line it is
	// OpPutHeader.
	Matched Op

	ID      uint64 // peek, reserve-job, delete, release, bury, kick-job, touch, stats-job; list-jobs' offset
	Pri     uint32 // put, release, bury
	Delay   uint32 // seconds: put, release, pause-tube
	TTR     uint32 // seconds: put (raw value; the queue raises 0 to 1)
	Size    uint32 // put: announced body size (also repeated on the OpPut event)
	TooBig  bool   // OpPutHeader: Size > max job size; see Decoder
	Count   uint32 // kick: the bound, after C strtoul semantics and truncation to 32 bits; list-jobs
	Timeout int32  // reserve-with-timeout: seconds (0..MaxInt32); negative: wait forever
	State   int8   // list-jobs: the state, an index into ListStates (ID is the offset)

	// Name is the tube name (use, watch, ignore, stats-tube, pause-tube, clear-tube, list-jobs). It is a VIEW into the
	// slice passed to Decode, valid only until the caller discards or overwrites those input
	// bytes: copy it (string(cmd.Name)) before that if it must outlive them.
	Name []byte

	// Token (auth) is the credential, a VIEW into the input like Name. Never log it.
	Token []byte

	// Body (OpPut) is the job data (len Size, capacity Size: its CRLF was checked, not kept),
	// freshly allocated by the decoder and owned by the caller from then on; the decoder keeps
	// no reference to it. This is the one copy a job body gets. A framing-only decoder
	// (NewFramingDecoder) copies no body: its OpPut events have Body nil.
	Body []byte
}
