package codec

// WireError is a protocol error that the decoder reports instead of a command. Its value is the
// reply word without the trailing CRLF, so a server answers it with AppendError(dst, err).
// WireError values are immutable constants and safe to share between goroutines.
type WireError string

// Error returns the wire word, e.g. "BAD_FORMAT".
func (e WireError) Error() string { return string(e) }

// The four errors the decoder can report. Command.Err, when non-nil, is always one of these.
const (
	// ErrBadFormat: a malformed line (bad number, bad tube name, trailing garbage, NUL byte,
	// or a line longer than LineMax).
	ErrBadFormat WireError = "BAD_FORMAT"
	// ErrUnknownCommand: the line matches no command prefix.
	ErrUnknownCommand WireError = "UNKNOWN_COMMAND"
	// ErrExpectedCRLF: a put body was not followed by "\r\n".
	ErrExpectedCRLF WireError = "EXPECTED_CRLF"
	// ErrJobTooBig: a put announced more bytes than the decoder's maximum job size; the
	// announced body has been swallowed.
	ErrJobTooBig WireError = "JOB_TOO_BIG"
)

// Boxed once, so that setting Command.Err never allocates on the hot path.
var (
	errBadFormat      error = ErrBadFormat
	errUnknownCommand error = ErrUnknownCommand
	errExpectedCRLF   error = ErrExpectedCRLF
	errJobTooBig      error = ErrJobTooBig
)
