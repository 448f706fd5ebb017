package enginetest

import (
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// rxQueue is what the kernel holds for the client to read on c.
func rxQueue(t *testing.T, c net.Conn) int64 {
	s, err := findSocket(c.LocalAddr().(*net.TCPAddr), c.RemoteAddr().(*net.TCPAddr))
	require.NoError(t, err)
	require.NotNil(t, s)
	return s.rxQueue
}

// Once Settle returns, the reply to what was sent is already in the client's
// receive queue, and a partial command has none: no time window involved.
func TestSettleAgainstReference(t *testing.T) {
	p := Reference(t)
	c := Dial(t, p.Addr())
	for range 20 {
		c.Send("list-tube-")
		require.NoError(t, Settle(c.NetConn(), p.Pid()))
		assert.Zero(t, rxQueue(t, c.NetConn()), "a partial command has no reply")
		c.Send("used\r\nuse t\r\n")
		require.NoError(t, Settle(c.NetConn(), p.Pid()))
		assert.EqualValues(t, len("USING default\r\nUSING t\r\n"), rxQueue(t, c.NetConn()))
		c.Expect("USING default\r\nUSING t\r\n")
		c.Do("use default\r\n", "USING default\r\n")
	}
	assert.Equal(t, "1", c.Stats()["total-connections"], "Reference opens no probe connection")
}

func TestReplyRoundTrip(t *testing.T) {
	in := "INSERTED 1\r\nOK 3\r\nabc\r\nFOUND 1 0\r\n\r\nRESERVED 7 4\r\na\r\nb\r\n"
	rs, eof := ParseReplies(in + "<EOF>")
	assert.True(t, eof)
	assert.Len(t, rs, 4)
	assert.Equal(t, in, Render(rs))
	assert.Equal(t, []string{"INSERTED 1\r\n", "OK 3\r\nabc\r\n", "FOUND 1 0\r\n\r\n", "RESERVED 7 4\r\na\r\nb\r\n", "USI"},
		SplitReplies(in+"USI"))
	m, ok := ParseYAML([]byte("---\nname: default\ncurrent-jobs-ready: 0\n"))
	assert.True(t, ok)
	assert.Equal(t, map[string]string{"name": "default", "current-jobs-ready": "0"}, m)
}

// Only a level-triggered, persistent epoll interest counts as a watcher: a
// thread asleep on any other says nothing about what the socket has pending.
func TestEpollWatchingLevelTriggeredOnly(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = unix.Close(fds[0]); _ = unix.Close(fds[1]) })
	epoll := func(events uint32, fd int) int {
		ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		require.NoError(t, err)
		t.Cleanup(func() { _ = unix.Close(ep) })
		require.NoError(t, unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &unix.EpollEvent{Events: events, Fd: int32(fd)}))
		return ep
	}
	level := epoll(unix.EPOLLIN|unix.EPOLLPRI, fds[0])
	edge := epoll(unix.EPOLLIN|unix.EPOLLOUT|unix.EPOLLRDHUP|unix.EPOLLET, fds[0]) // as the Go runtime's poller
	oneShot := epoll(unix.EPOLLIN|unix.EPOLLONESHOT, fds[0])
	other := epoll(unix.EPOLLIN, fds[1])
	pid := os.Getpid()
	assert.Equal(t, []int{level}, epollWatching(pid, fds[0], []int{level, edge, oneShot, other}))
	assert.Equal(t, []int{other}, epollWatching(pid, fds[1], []int{level, edge, oneShot, other}))
	assert.Contains(t, epollWatching(pid, fds[0], nil), level)
	assert.NotContains(t, epollWatching(pid, fds[0], nil), edge)
}

// A socket that only a net.Conn holds is watched by the Go runtime's poller
// alone, edge-triggered, where some thread is nearly always asleep: it has no
// watcher, so Settle never mistakes that thread for an idle event loop. (In
// stalkd every accepted connection is such a socket until gnet's duplicate
// takes over; the barrier once returned there while the loop was still
// executing the first bytes.)
func TestSettleIgnoresTheRuntimePoller(t *testing.T) {
	c, sc := loopbackPair(t)
	t.Cleanup(func() { _ = sc.Close() })
	local, remote := c.LocalAddr().(*net.TCPAddr), c.RemoteAddr().(*net.TCPAddr)
	_, theirs, err := findPair(local, remote)
	require.NoError(t, err)
	require.NotNil(t, theirs)
	fd, ok := fdOfInode(os.Getpid(), theirs.inode)
	require.True(t, ok)
	assert.Empty(t, epollWatching(os.Getpid(), fd, nil), "the runtime's poller watches it edge-triggered")
	_, why := watcherOf(os.Getpid(), theirs.inode)
	assert.Contains(t, why, "level-triggered")
	why, err = settled(local, remote, os.Getpid())
	require.NoError(t, err)
	assert.NotEmpty(t, why, "a connection served by a goroutine is never settled")
}

// A server that closes with input unread resets the connection: the
// client's socket leaves the kernel's tables, and Settle returns at once
// instead of waiting for a socket that will never come back.
func TestSettleAfterReset(t *testing.T) {
	c, sc := loopbackPair(t)
	_, err := c.Write([]byte("quit\r\nput 0 0 1 1\r\n"))
	require.NoError(t, err)
	require.NoError(t, sc.SetLinger(0))
	require.NoError(t, sc.Close()) // unread input: a reset, delivered on loopback before Close returns

	local, remote := c.LocalAddr().(*net.TCPAddr), c.RemoteAddr().(*net.TCPAddr)
	why, err := settled(local, remote, os.Getpid())
	require.NoError(t, err)
	assert.Contains(t, why, "no socket", "sock_diag lists no reset socket")
	assert.True(t, reset(c))
	start := time.Now()
	require.NoError(t, Settle(c, os.Getpid()))
	assert.Less(t, time.Since(start), Timeout/2, "returned at once, not at the deadline")
}

// loopbackPair returns both ends of a fresh loopback TCP connection, served
// by nobody: the client's (closed at cleanup) and the accepted one.
func loopbackPair(t *testing.T) (client net.Conn, server *net.TCPConn) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer func() { _ = ln.Close() }()
	accepted := make(chan *net.TCPConn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c.(*net.TCPConn)
		}
		close(accepted)
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Close() })
	server, ok := <-accepted
	require.True(t, ok)
	return client, server
}
