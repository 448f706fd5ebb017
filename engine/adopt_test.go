package engine

import (
	"bufio"
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
)

// tcpPair returns both ends of a fresh loopback TCP connection: the
// client's and the accepted one.
func tcpPair(t *testing.T) (client, accepted net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	accepted, err = ln.Accept()
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	return client, accepted
}

// adoptedClient is the client side of a connection adopted by s, its
// reader (every I/O bounded by ioTimeout) and where its end is reported.
func adoptedClient(t *testing.T, s *Server) (net.Conn, *bufio.Reader, <-chan *Detached) {
	t.Helper()
	client, accepted := tcpPair(t)
	backs := adopt(t, s, accepted)
	_ = client.SetDeadline(time.Now().Add(ioTimeout))
	return client, bufio.NewReader(client), backs
}

// adopt hands accepted to s and returns where its end is reported.
func adopt(t *testing.T, s *Server, accepted net.Conn) <-chan *Detached {
	t.Helper()
	backs := make(chan *Detached, 2)
	require.True(t, s.Adopt(accepted, func(d *Detached) { backs <- d }))
	return backs
}

func stopNow(t *testing.T, s *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	require.NoError(t, s.Stop(ctx))
}

func readLines(t *testing.T, r *bufio.Reader, n int) string {
	t.Helper()
	var b strings.Builder
	for range n {
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		b.WriteString(line)
	}
	return b.String()
}

// An adopted connection is served like an accepted one; when the server
// stops, the connection is handed back open, with its tubes, the reserve
// it was waiting in (owed a reply) and the command behind it not run.
func TestAdoptHandsBackOnStop(t *testing.T) {
	s := startServer(t)
	client, r, backs := adoptedClient(t, s)
	_, err := io.WriteString(client, "use foo\r\nwatch bar\r\nput 0 0 60 1\r\nx\r\n")
	require.NoError(t, err)
	assert.Equal(t, "USING foo\r\nWATCHING 2\r\nINSERTED 1\r\n", readLines(t, r, 3))

	// The job is in foo, which is not watched: the reserve waits, and
	// list-tube-used waits behind it.
	_, err = io.WriteString(client, "reserve\r\nlist-tube-used\r\n")
	require.NoError(t, err)
	other := dial(t, s)
	enginetest.Eventually(t, "the adopted connection's reserve is waiting", func() bool {
		return other.Stats()["current-waiting"] == "1"
	})

	stopNow(t, s)
	var d *Detached
	select {
	case d = <-backs:
	case <-time.After(ioTimeout):
		t.Fatal("the adopted connection was not handed back")
	}
	require.NotNil(t, d, "handed back, not closed")
	defer d.Conn.Close()
	assert.Equal(t, "foo", d.Use)
	assert.Equal(t, []string{"default", "bar"}, d.Watch)
	assert.Equal(t, 1, d.Owed, "the waiting reserve")
	assert.Equal(t, 0, d.Skip)
	assert.Equal(t, "list-tube-used\r\n", string(d.Unread))
	assert.False(t, d.Authed)

	// The client's socket is the same, still open both ways.
	_, err = io.WriteString(d.Conn, "INTERNAL_ERROR\r\n")
	require.NoError(t, err)
	assert.Equal(t, "INTERNAL_ERROR\r\n", readLines(t, r, 1))
	_, err = io.WriteString(client, "stats\r\n")
	require.NoError(t, err)
	_ = d.Conn.SetReadDeadline(time.Now().Add(ioTimeout))
	got, err := bufio.NewReader(d.Conn).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "stats\r\n", got)
}

// A put whose body is arriving when the server stops is handed back
// either not begun (all its bytes unread) or begun (owed a reply, the rest
// of its body to skip); either way the stream the receiver carries on is
// whole.
func TestAdoptHandsBackPutMidBody(t *testing.T) {
	s := startServer(t, func(c *Config) { c.AuthTokens = []string{"sesame"} })
	client, r, backs := adoptedClient(t, s)
	_, err := io.WriteString(client, "auth sesame\r\n")
	require.NoError(t, err)
	assert.Equal(t, "AUTHENTICATED\r\n", readLines(t, r, 1))

	_, err = io.WriteString(client, "put 0 0 60 10\r\nabc")
	require.NoError(t, err)
	stopNow(t, s)
	d := <-backs
	require.NotNil(t, d)
	defer d.Conn.Close()
	assert.True(t, d.Authed)
	switch d.Owed {
	case 0:
		assert.Equal(t, "put 0 0 60 10\r\nabc", string(d.Unread))
		assert.Equal(t, 0, d.Skip)
	case 1:
		assert.Equal(t, 7+2-len(d.Unread), d.Skip, "the rest of the body and its CRLF")
		assert.Empty(t, strings.TrimLeft(string(d.Unread), "abc"))
	default:
		t.Fatalf("owed %d", d.Owed)
	}
}

// An adopted connection that ends is reported once, with nil; Adopt takes
// nothing from a stopped server.
func TestAdoptEndAndRefusal(t *testing.T) {
	s := startServer(t)
	client, accepted := tcpPair(t)
	backs := adopt(t, s, accepted)
	_, err := io.WriteString(client, "quit\r\n")
	require.NoError(t, err)
	select {
	case d := <-backs:
		assert.Nil(t, d)
	case <-time.After(ioTimeout):
		t.Fatal("the end was not reported")
	}

	stopNow(t, s)
	c2, acc2 := tcpPair(t)
	defer acc2.Close()
	assert.False(t, s.Adopt(acc2, func(*Detached) { t.Error("back called for a refused connection") }))
	_, err = io.WriteString(acc2, "still mine\r\n") // untouched: the caller keeps it
	require.NoError(t, err)
	_ = c2.SetReadDeadline(time.Now().Add(ioTimeout))
	got, err := bufio.NewReader(c2).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "still mine\r\n", got)
	assert.Empty(t, backs)
}

// Many adopted connections, busy when the server stops: each is reported
// exactly once, and each one handed back carries its own session.
func TestAdoptManyHandedBackOnce(t *testing.T) {
	s := startServer(t)
	const n = 40
	type side struct {
		client net.Conn
		backs  <-chan *Detached
	}
	sides := make([]side, n)
	for i := range sides {
		client, accepted := tcpPair(t)
		sides[i] = side{client, adopt(t, s, accepted)}
		tube := "t" + strconv.Itoa(i)
		_ = client.SetDeadline(time.Now().Add(ioTimeout))
		_, err := io.WriteString(client, "use "+tube+"\r\n")
		require.NoError(t, err)
		line, err := bufio.NewReader(client).ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "USING "+tube+"\r\n", line)
		// Keep it busy: puts the server may or may not run before it stops.
		_, err = io.WriteString(client, strings.Repeat("put 0 0 60 1\r\nx\r\n", 20))
		require.NoError(t, err)
	}
	stopNow(t, s)
	for i, sd := range sides {
		select {
		case d := <-sd.backs:
			if d != nil {
				assert.Equal(t, "t"+strconv.Itoa(i), d.Use)
				// What the receiver carries on (Unread past Skip) starts at a
				// command: the next puts; a put begun is owed, its rest skipped.
				assert.Equal(t, d.Skip > 0, d.Owed == 1, "owed %d, skip %d", d.Owed, d.Skip)
				rest := string(d.Unread[min(d.Skip, len(d.Unread)):])
				assert.True(t, strings.HasPrefix(strings.Repeat("put 0 0 60 1\r\nx\r\n", 20), rest), "carried on: %q", rest)
				_ = d.Conn.Close()
			}
		case <-time.After(ioTimeout):
			t.Fatalf("connection %d was not reported", i)
		}
		select {
		case <-sd.backs:
			t.Fatalf("connection %d reported twice", i)
		default:
		}
	}
}
