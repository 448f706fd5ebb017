package engine

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

func TestListenDualStack(t *testing.T) {
	s := startServer(t, func(c *Config) { c.Addr = ":0" })
	p := strconv.Itoa(port(t, s))
	dialRaw(t, "tcp", "127.0.0.1:"+p).Do("list-tube-used\r\n", "USING default\r\n")
	if c, err := net.Dial("tcp6", "[::1]:"+p); err != nil {
		t.Logf("no IPv6 loopback here: %v", err)
	} else {
		_ = c.Close()
		dialRaw(t, "tcp", "[::1]:"+p).Do("list-tube-used\r\n", "USING default\r\n")
	}
}

func TestListenUnixSocket(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stalkd.sock")
	// A stale socket file, left by a process that died, is replaced.
	ln, err := net.Listen("unix", path)
	require.NoError(t, err)
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	require.NoError(t, ln.Close())

	s := startServer(t, func(c *Config) { c.Addr = "unix:" + path })
	assert.Equal(t, path, s.Addr().String())
	dialRaw(t, "unix", path).Do("put 0 0 10 1\r\nx\r\n", "INSERTED 1\r\n")

	// Any other kind of file is left alone.
	other := filepath.Join(dir, "regular")
	require.NoError(t, os.WriteFile(other, []byte("keep me"), 0o600))
	_, err = Start(context.Background(), Config{Addr: "unix:" + other, Logger: testLogger(t)})
	require.ErrorContains(t, err, "not a socket")
	data, err := os.ReadFile(other)
	require.NoError(t, err)
	assert.Equal(t, "keep me", string(data))
}

func TestListenBadAddresses(t *testing.T) {
	for _, a := range []string{"nonsense", "unix:", "127.0.0.1:notaport", "256.1.1.1:0"} {
		_, err := Start(context.Background(), Config{Addr: a, Logger: testLogger(t)})
		assert.Error(t, err, a)
	}
	_, err := Start(context.Background(), Config{MaxJobSize: MaxJobSizeLimit + 1})
	assert.Error(t, err)
}

// TestRestartSamePort: a new server binds the port of one just stopped, with
// its connections in TIME_WAIT (SO_REUSEADDR).
func TestRestartSamePort(t *testing.T) {
	ctx := context.Background()
	s1, err := Start(ctx, Config{Addr: "127.0.0.1:0", Logger: testLogger(t)})
	require.NoError(t, err)
	addr := addrOf(t, s1)
	c := dialRaw(t, "tcp", addr)
	c.Do("list-tube-used\r\n", "USING default\r\n")
	require.NoError(t, s1.Stop(ctx))
	c.ExpectEOF()

	s2, err := Start(ctx, Config{Addr: addr, Logger: testLogger(t)})
	require.NoError(t, err)
	defer func() { require.NoError(t, s2.Stop(ctx)) }()
	dialRaw(t, "tcp", addr).Do("list-tube-used\r\n", "USING default\r\n")
}

// TestListenThenServe: between Listen and Serve clients wait in the backlog;
// Serve installs the queue they then talk to.
func TestListenThenServe(t *testing.T) {
	ctx := context.Background()
	s, err := Listen(ctx, Config{Addr: "127.0.0.1:0", Logger: testLogger(t)})
	require.NoError(t, err)
	defer func() { require.NoError(t, s.Stop(ctx)) }()
	assert.Nil(t, s.Queue())
	c := dialRaw(t, "tcp", addrOf(t, s))
	c.Send("put 0 0 10 1\r\nx\r\n")

	q := jobs.New(jobs.Config{})
	require.NoError(t, s.Serve(Backend{Queue: q}))
	assert.Error(t, s.Serve(Backend{}), "Serve runs once")
	c.Expect("INSERTED 1\r\n")
	assert.Same(t, q, s.Queue())
	assert.Equal(t, int64(1), q.Stats().Ready)
}

func TestStopBeforeServe(t *testing.T) {
	ctx := context.Background()
	s, err := Listen(ctx, Config{Addr: "127.0.0.1:0", Logger: testLogger(t)})
	require.NoError(t, err)
	require.NoError(t, s.Stop(ctx))
	<-s.Done()
	assert.NoError(t, s.Err())
	assert.Error(t, s.Serve(Backend{}))
	_, err = net.Dial("tcp", addrOf(t, s))
	assert.Error(t, err, "the socket is closed")
}

// TestStopGraceful: Stop answers what is due, closes every connection and
// returns reserved jobs to ready.
func TestStopGraceful(t *testing.T) {
	q := jobs.New(jobs.Config{})
	ctx := context.Background()
	s, err := Listen(ctx, Config{Addr: "127.0.0.1:0", Logger: testLogger(t)})
	require.NoError(t, err)
	require.NoError(t, s.Serve(Backend{Queue: q}))
	a, b := dialRaw(t, "tcp", addrOf(t, s)), dialRaw(t, "tcp", addrOf(t, s))
	a.Do("put 0 0 100 1\r\nx\r\nreserve\r\n", "INSERTED 1\r\nRESERVED 1 1\r\nx\r\n")
	b.Send("reserve\r\n")
	require.Eventually(t, func() bool { return q.Stats().Waiting == 1 }, ioTimeout, time.Millisecond)

	sctx, cancel := context.WithTimeout(ctx, ioTimeout)
	defer cancel()
	require.NoError(t, s.Stop(sctx))
	require.NoError(t, s.Stop(sctx), "Stop is idempotent")
	a.ExpectEOF()
	b.ExpectEOF()
	st := q.Stats()
	assert.Equal(t, int64(1), st.Ready)
	assert.Zero(t, st.Reserved+st.Waiting+st.Connections)
}

func TestMaxConns(t *testing.T) {
	s := startServer(t, func(c *Config) { c.MaxConns = 2 })
	a, b := dial(t, s), dial(t, s)
	a.Do("list-tube-used\r\n", "USING default\r\n")
	b.Do("list-tube-used\r\n", "USING default\r\n")
	c := dial(t, s)
	c.ExpectClosed()
	require.NoError(t, a.NetConn().Close())
	require.Eventually(t, func() bool { return s.reg.count() == 1 }, ioTimeout, time.Millisecond)
	dial(t, s).Do("list-tube-used\r\n", "USING default\r\n")
}
