package engine

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startFront starts a Front on 127.0.0.1:0 whose leader is whatever
// leader() returns.
func startFront(t *testing.T, wait time.Duration, leader func(ctx context.Context) (string, error)) *Front {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f := StartFront(FrontConfig{Listener: ln, Leader: leader, Wait: wait, Logger: zerolog.New(zerolog.NewTestWriter(t))})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		assert.NoError(t, f.Stop(ctx))
	})
	return f
}

func startLeader(t *testing.T) *Server {
	srv, err := Start(context.Background(), Config{Addr: "127.0.0.1:0", Logger: zerolog.New(zerolog.NewTestWriter(t))})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Stop(context.Background()) })
	return srv
}

func fixedLeader(addr string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return addr, nil }
}

// TestFrontCarriesBytes: through the front, a client gets exactly the
// bytes the leader sends, pipelined commands included; and a go-beanstalk
// client works unchanged.
func TestFrontCarriesBytes(t *testing.T) {
	leader := startLeader(t)
	f := startFront(t, 10*time.Second, fixedLeader(leader.Addr().String()))
	c, err := net.Dial("tcp", f.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(20*time.Second)))
	_, err = io.WriteString(c, "use t\r\nput 1 0 60 5\r\nhello\r\nwatch t\r\nreserve-with-timeout 0\r\ndelete 1\r\nbogus\r\n")
	require.NoError(t, err)
	want := "USING t\r\nINSERTED 1\r\nWATCHING 2\r\nRESERVED 1 5\r\nhello\r\nDELETED\r\nUNKNOWN_COMMAND\r\n"
	got := make([]byte, len(want))
	_, err = io.ReadFull(c, got)
	require.NoError(t, err)
	assert.Equal(t, want, string(got))

	bc, err := beanstalk.Dial("tcp", f.Addr().String())
	require.NoError(t, err)
	defer bc.Close()
	id, err := bc.Put([]byte("x"), 0, 0, time.Minute)
	require.NoError(t, err)
	body, err := bc.Peek(id)
	require.NoError(t, err)
	assert.Equal(t, "x", string(body))
}

// TestFrontHalfClose: a client that half-closes still gets the replies to
// what it sent, then end of input.
func TestFrontHalfClose(t *testing.T) {
	leader := startLeader(t)
	f := startFront(t, 10*time.Second, fixedLeader(leader.Addr().String()))
	c, err := net.Dial("tcp", f.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(20*time.Second)))
	_, err = io.WriteString(c, "put 0 0 60 2\r\nhi\r\n")
	require.NoError(t, err)
	require.NoError(t, c.(*net.TCPConn).CloseWrite())
	all, err := io.ReadAll(c)
	require.NoError(t, err)
	assert.Equal(t, "INSERTED 1\r\n", string(all))
}

// TestFrontNoLeader: with no leader within Wait, each command is answered
// INTERNAL_ERROR and the connection closed (never left hanging); a leader
// that appears within Wait serves the commands that waited.
func TestFrontNoLeader(t *testing.T) {
	f := startFront(t, 200*time.Millisecond, func(ctx context.Context) (string, error) {
		<-ctx.Done()
		return "", errors.New("no leader")
	})
	c, err := net.Dial("tcp", f.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(20*time.Second)))
	_, err = io.WriteString(c, "stats\r\nput 0 0 1 2\r\nhi\r\n")
	require.NoError(t, err)
	all, err := io.ReadAll(c) // answered, then closed once the client is quiet
	require.NoError(t, err)
	assert.Equal(t, "INTERNAL_ERROR\r\nINTERNAL_ERROR\r\n", string(all))

	leader := startLeader(t)
	late := make(chan struct{})
	g := startFront(t, 20*time.Second, func(ctx context.Context) (string, error) {
		select {
		case <-late:
			return leader.Addr().String(), nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	c2, err := net.Dial("tcp", g.Addr().String())
	require.NoError(t, err)
	defer c2.Close()
	require.NoError(t, c2.SetDeadline(time.Now().Add(20*time.Second)))
	_, err = io.WriteString(c2, "use waited\r\n")
	require.NoError(t, err)
	close(late)
	line, err := bufio.NewReader(c2).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "USING waited\r\n", line)
}

// TestFrontLeaderGoes: when the leader's side closes, so does the client's.
func TestFrontLeaderGoes(t *testing.T) {
	leader := startLeader(t)
	f := startFront(t, 10*time.Second, fixedLeader(leader.Addr().String()))
	c, err := net.Dial("tcp", f.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, c.SetDeadline(time.Now().Add(20*time.Second)))
	r := bufio.NewReader(c)
	_, err = io.WriteString(c, "use a\r\n")
	require.NoError(t, err)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "USING a\r\n", line)
	require.NoError(t, leader.Stop(context.Background()))
	_, err = r.ReadByte()
	assert.ErrorIs(t, err, io.EOF)
}
