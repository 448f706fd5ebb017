package engine

import (
	"errors"
	"testing"
	"unsafe"

	"github.com/panjf2000/gnet/v2"
	"github.com/rs/zerolog"
	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memTransport is a transport over byte slices, to run a conn's serve
// without a socket: in is what the client sent, out what was written.
type memTransport struct {
	in, out []byte
}

func (m *memTransport) InboundBuffered() int { return len(m.in) }
func (m *memTransport) Peek(n int) ([]byte, error) {
	return m.in[:n], nil
}
func (m *memTransport) Discard(n int) (int, error) {
	m.in = m.in[n:]
	return n, nil
}
func (m *memTransport) Write(b []byte) (int, error) {
	m.out = append(m.out, b...)
	return len(b), nil
}
func (m *memTransport) OutboundBuffered() int         { return 0 }
func (m *memTransport) Wake(gnet.AsyncCallback) error { return nil }
func (m *memTransport) Dup() (int, error)             { return -1, errors.New("memTransport: no socket") }

// memConn opens a conn of s over a memTransport; it is closed with the test.
func memConn(t *testing.T, s *Server) (*conn, *memTransport) {
	mt := &memTransport{}
	cn := s.openConn(mt, -1, nil, false)
	t.Cleanup(func() { cn.end(nil) })
	return cn, mt
}

// A command that needs no new state costs no allocation on the wire path:
// not the decoded command, not the reply buffer.
func TestServeAllocatesNothingPerCommand(t *testing.T) {
	s := startServer(t)
	cn, mt := memConn(t, s)
	line := []byte("peek 12345\r\nlist-tube-used\r\n")
	run := func() {
		mt.in, mt.out = line, mt.out[:0]
		require.Equal(t, gnet.None, cn.serve())
	}
	run()
	require.Equal(t, "NOT_FOUND\r\nUSING default\r\n", string(mt.out))
	if enginetest.RaceEnabled {
		t.Skip("the race detector allocates, and sync.Pool drops items under it")
	}
	assert.Zero(t, testing.AllocsPerRun(200, run))
}

// An idle connection holds no decoder and no command scratch: it borrows
// them while it has input and gives them back between commands, but keeps
// them while a put's body is still arriving.
func TestIdleConnHoldsNoDecoder(t *testing.T) {
	s := startServer(t)
	a, ma := memConn(t, s)
	b, mb := memConn(t, s)
	require.Equal(t, gnet.None, a.serve()) // a wake with no input
	assert.Nil(t, a.rx)

	ma.in = []byte("put 0 0 10 5\r\nhel")
	require.Equal(t, gnet.None, a.serve())
	assert.NotNil(t, a.rx, "a body is pending")
	assert.Empty(t, ma.out)

	// Another connection borrows and returns in between.
	mb.in = []byte("use other\r\nput 0 0 10 3\r\nabc\r\n")
	require.Equal(t, gnet.None, b.serve())
	assert.Equal(t, "USING other\r\nINSERTED 2\r\n", string(mb.out))
	assert.Nil(t, b.rx)

	ma.in = []byte("lo\r\nlist-tube-used\r\n")
	require.Equal(t, gnet.None, a.serve())
	assert.Equal(t, "INSERTED 1\r\nUSING default\r\n", string(ma.out))
	assert.Nil(t, a.rx)
	assert.Nil(t, a.held, "nothing waited for a journal")
}

// Opening and ending an idle connection allocates the conn and its session
// and nothing else: no closure for the session's wake-up (issue 12's memory
// per idle connection).
func TestOpenConnAllocations(t *testing.T) {
	if enginetest.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	s := startServer(t, func(c *Config) { c.Logger = zerolog.Nop() })
	mt := &memTransport{}
	open := func() { s.openConn(mt, -1, nil, false).end(nil) }
	open() // grow the registry's maps
	assert.Equal(t, 2.0, testing.AllocsPerRun(200, open))
}

// A conn, one per connection and most of them idle, fits the 128-byte size
// class (it was 176): what only a command in progress needs is in connRx.
func TestConnSize(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(conn{}), uintptr(128))
}

// Between commands a connection's reply buffer goes back with its connRx:
// an idle connection keeps none, whatever size its replies had.
func TestIdleConnKeepsNoReplyBuffer(t *testing.T) {
	s := startServer(t)
	cn, mt := memConn(t, s)
	mt.in = []byte("list-tube-used\r\nstats\r\n")
	require.Equal(t, gnet.None, cn.serve())
	assert.Contains(t, string(mt.out), "USING default\r\nOK ")
	assert.Nil(t, cn.rx)
	assert.Nil(t, cn.out)
}
