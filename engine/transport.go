package engine

import "github.com/panjf2000/gnet/v2"

// transport is the seam between a connection's protocol logic (conn: one
// decoder, one session, one reply path) and its socket. A gnet.Conn is one
// (plain connections, on gnet's event loops); tlsConn is the other (TLS
// connections, each on its own goroutine). The methods follow gnet.Conn's
// contract: all but Wake are called only by the goroutine that owns the
// connection; a slice from Peek is valid until Discard or the end of the
// serve; a Write that fails has closed the connection (and ended conn).
type transport interface {
	// InboundBuffered is how many received bytes wait to be consumed.
	InboundBuffered() int
	// Peek returns the next n buffered bytes without consuming them.
	Peek(n int) ([]byte, error)
	// Discard consumes n bytes.
	Discard(n int) (int, error)
	// Write queues b for the client (it may be written later).
	Write(b []byte) (int, error)
	// OutboundBuffered is how many bytes are queued but not yet written.
	OutboundBuffered() int
	// Wake makes the owner serve the connection soon, from any goroutine.
	Wake(cb gnet.AsyncCallback) error
	// Dup duplicates the socket's descriptor (for finishing replies after
	// a close); a transport that cannot hand its socket over fails.
	Dup() (int, error)
}

var _ transport = gnet.Conn(nil)
