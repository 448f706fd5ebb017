package front

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/enginetest"
)

// startFront starts a Front on 127.0.0.1:0 whose leader is whatever
// leader() returns.
func startFront(t *testing.T, wait time.Duration, leader func(ctx context.Context) (string, uint64, error)) *Front {
	return startFrontConfig(t, Config{Leader: leader, Wait: wait})
}

// startFrontConfig starts a Front of cfg on 127.0.0.1:0 (cfg.Listener and
// cfg.Logger are set here) and stops it when the test ends.
func startFrontConfig(t *testing.T, cfg Config) *Front {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	cfg.Listener, cfg.Logger = ln, zerolog.New(zerolog.NewTestWriter(t))
	f := Start(cfg)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		assert.NoError(t, f.Stop(ctx))
	})
	return f
}

// startLeader starts an engine for a front to carry to; a test may stop it
// itself.
func startLeader(t *testing.T, mutate ...func(*engine.Config)) *engine.Server {
	cfg := engine.Config{Addr: "127.0.0.1:0", Logger: zerolog.New(zerolog.NewTestWriter(t))}
	for _, m := range mutate {
		m(&cfg)
	}
	srv, err := engine.Start(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Stop(context.Background()) })
	return srv
}

// currentLeader is the engine in cur, waiting while there is none; its port
// stands for its generation.
func currentLeader(cur *atomic.Pointer[engine.Server]) func(context.Context) (string, uint64, error) {
	return func(ctx context.Context) (string, uint64, error) {
		for {
			if s := cur.Load(); s != nil {
				return s.Addr().String(), uint64(s.Addr().(*net.TCPAddr).Port), nil // a generation per engine
			}
			select {
			case <-ctx.Done():
				return "", 0, ctx.Err()
			case <-time.After(time.Millisecond):
			}
		}
	}
}

func fixedLeader(addr string) func(context.Context) (string, uint64, error) {
	return func(context.Context) (string, uint64, error) { return addr, 1, nil }
}

// TestFrontCarriesBytes: through the front, a client gets exactly the
// bytes the leader sends, pipelined commands included; and a go-beanstalk
// client works unchanged.
func TestFrontCarriesBytes(t *testing.T) {
	leader := startLeader(t)
	f := startFront(t, 10*time.Second, fixedLeader(leader.Addr().String()))
	enginetest.Dial(t, f.Addr().String()).Do(
		"use t\r\nput 1 0 60 5\r\nhello\r\nwatch t\r\nreserve-with-timeout 0\r\ndelete 1\r\nbogus\r\n",
		"USING t\r\nINSERTED 1\r\nWATCHING 2\r\nRESERVED 1 5\r\nhello\r\nDELETED\r\nUNKNOWN_COMMAND\r\n")

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
	c := enginetest.Dial(t, f.Addr().String())
	c.Send("put 0 0 60 2\r\nhi\r\n")
	c.CloseWrite()
	c.Expect("INSERTED 1\r\n")
	c.ExpectEOF()
}

// TestFrontNoLeader: with no leader within Wait, each command is answered
// INTERNAL_ERROR and the connection closed (never left hanging); a leader
// that appears within Wait serves the commands that waited.
func TestFrontNoLeader(t *testing.T) {
	f := startFront(t, 200*time.Millisecond, func(ctx context.Context) (string, uint64, error) {
		<-ctx.Done()
		return "", 0, errors.New("no leader")
	})
	c := enginetest.Dial(t, f.Addr().String())
	c.Do("stats\r\nput 0 0 1 2\r\nhi\r\n", "INTERNAL_ERROR\r\nINTERNAL_ERROR\r\n")
	c.ExpectEOF() // answered, then closed once the client is quiet

	leader := startLeader(t)
	late := make(chan struct{})
	g := startFront(t, 20*time.Second, func(ctx context.Context) (string, uint64, error) {
		select {
		case <-late:
			return leader.Addr().String(), 1, nil
		case <-ctx.Done():
			return "", 0, ctx.Err()
		}
	})
	c2 := enginetest.Dial(t, g.Addr().String())
	c2.Send("use waited\r\n")
	close(late)
	c2.Expect("USING waited\r\n")
}

// TestFrontLeaderGoes: when the leader's side closes and no other leader
// appears within Wait, the client's connection closes.
func TestFrontLeaderGoes(t *testing.T) {
	leader := startLeader(t)
	f := startFront(t, 300*time.Millisecond, fixedLeader(leader.Addr().String()))
	c := enginetest.Dial(t, f.Addr().String())
	c.Do("use a\r\n", "USING a\r\n")
	require.NoError(t, leader.Stop(context.Background()))
	c.ExpectEOF()
}

// TestFrontFailover: when the leader changes, a connection is carried to
// the next one: the command in flight is answered INTERNAL_ERROR, the
// used tube and the watch list are replayed, and later commands run there.
func TestFrontFailover(t *testing.T) {
	first, second := startLeader(t), startLeader(t)
	var cur atomic.Pointer[engine.Server]
	cur.Store(first)
	f := startFront(t, 20*time.Second, currentLeader(&cur))
	c := enginetest.Dial(t, f.Addr().String())
	// A put line refused at once (nothing swallowed) is owed one reply,
	// which the front must count, or it would misread the replies after it.
	c.Send("put 0 0 1 2 x\r\nuse a\r\nwatch b\r\nignore default\r\nreserve-with-timeout 60\r\n")
	c.Expect("BAD_FORMAT\r\nUSING a\r\nWATCHING 2\r\nWATCHING 1\r\n")
	// The reserve waits on the first leader; the leader changes.
	enginetest.Eventually(t, "the reserve waiting on the first leader", func() bool { return first.Queue().Stats().Waiting == 1 })
	cur.Store(nil)
	require.NoError(t, first.Stop(context.Background()))
	cur.Store(second)
	c.Expect("INTERNAL_ERROR\r\n")
	c.Do("list-tube-used\r\nlist-tubes-watched\r\nput 0 0 60 2\r\nhi\r\npeek-ready\r\n",
		"USING a\r\nOK 8\r\n---\n- b\n\r\nINSERTED 1\r\nFOUND 1 2\r\nhi\r\n")
	st, err := second.Queue().StatsTube([]byte("a"))
	require.NoError(t, err)
	assert.Equal(t, int64(1), st.Ready, "the put went to the second leader, in the used tube")
}

// TestFrontFramesLikeTheEngine: a put too big for -z is framed as the
// engine frames it (JOB_TOO_BIG after the swallowed body), so the replies
// that follow stay matched to their commands.
func TestFrontFramesLikeTheEngine(t *testing.T) {
	srv := startLeader(t, func(c *engine.Config) { c.MaxJobSize = 4 })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f := Start(Config{Listener: ln, Leader: fixedLeader(srv.Addr().String()), MaxJobSize: 4,
		Logger: zerolog.New(zerolog.NewTestWriter(t))})
	t.Cleanup(func() { _ = f.Stop(context.Background()) })
	c := enginetest.Dial(t, f.Addr().String())
	c.Do("put 0 0 1 6\r\nabcdef\r\nput 0 0 1 2\r\nok\r\nquit\r\n", "JOB_TOO_BIG\r\nINSERTED 1\r\n")
	c.ExpectEOF()
}

// TestFrontFailoverAuth: an authenticated connection stays authenticated
// on the next leader (its auth is replayed first).
func TestFrontFailoverAuth(t *testing.T) {
	const token = "0123456789abcdef-token"
	withToken := func(c *engine.Config) { c.AuthTokens = []string{token} }
	first, second := startLeader(t, withToken), startLeader(t, withToken)
	var cur atomic.Pointer[engine.Server]
	cur.Store(first)
	f := startFront(t, 20*time.Second, currentLeader(&cur))
	c := enginetest.Dial(t, f.Addr().String())
	c.Send("use a\r\nauth " + token + "\r\nuse a\r\n")
	assert.Equal(t, "UNKNOWN_COMMAND", c.Line())
	assert.Equal(t, "AUTHENTICATED", c.Line())
	assert.Equal(t, "USING a", c.Line())
	cur.Store(nil)
	require.NoError(t, first.Stop(context.Background()))
	cur.Store(second)
	// No command was in flight: once the front has moved over (its
	// replayed session is on the second leader), the next one runs there.
	enginetest.Eventually(t, "the front to move to the second leader", func() bool { return second.Queue().Stats().Connections == 1 })
	c.Send("list-tube-used\r\n")
	assert.Equal(t, "USING a", c.Line())
}

// TestFrontLeaderClosesOnPurpose: a connection the leader closes while it
// lives (here after too many wrong tokens) is closed, not carried again.
func TestFrontLeaderClosesOnPurpose(t *testing.T) {
	srv := startLeader(t, func(c *engine.Config) { c.AuthTokens = []string{"0123456789abcdef-token"} })
	f := startFront(t, 20*time.Second, fixedLeader(srv.Addr().String()))
	c := enginetest.Dial(t, f.Addr().String())
	var req, want string
	for range engine.MaxAuthFailures {
		req += "auth wrong-token-0123456789\r\n"
		want += "UNAUTHORIZED\r\n"
	}
	c.Do(req, want)
	c.ExpectEOF()
}

// TestFrontMaxConns: past MaxConns a new client connection is closed at
// once; the ones open are served.
func TestFrontMaxConns(t *testing.T) {
	leader := startLeader(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f := Start(Config{Listener: ln, Leader: fixedLeader(leader.Addr().String()), MaxConns: 1,
		Logger: zerolog.New(zerolog.NewTestWriter(t))})
	t.Cleanup(func() { _ = f.Stop(context.Background()) })
	enginetest.Dial(t, f.Addr().String()).Do("use a\r\n", "USING a\r\n")
	second, err := net.Dial("tcp", f.Addr().String())
	require.NoError(t, err)
	defer second.Close()
	require.NoError(t, second.SetDeadline(time.Now().Add(20*time.Second)))
	_, err = second.Read(make([]byte, 1))
	assert.Error(t, err, "closed at once")
}

// TestFrontMovesFromHungLeader: a leader that reads and never answers (a
// paused process: its sockets stay open) holds a carried connection until
// Moved says the leader changed; then the commands in flight are answered
// INTERNAL_ERROR and the connection goes on on the new leader. A wake-up
// with the same leader moves nothing.
func TestFrontMovesFromHungLeader(t *testing.T) {
	hung, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { hung.Close() })
	var accepts, received atomic.Int64
	go func() {
		for {
			c, err := hung.Accept()
			if err != nil {
				return
			}
			accepts.Add(1)
			go func() {
				defer c.Close()
				buf := make([]byte, 1024)
				for {
					n, err := c.Read(buf)
					received.Add(int64(n))
					if err != nil {
						return
					}
				}
			}()
			t.Cleanup(func() { c.Close() })
		}
	}()
	second := startLeader(t)
	var mu sync.Mutex
	addr, gen, changed := hung.Addr().String(), uint64(1), make(chan struct{})
	wake := func(newAddr string, newGen uint64) {
		mu.Lock()
		addr, gen = newAddr, newGen
		close(changed)
		changed = make(chan struct{})
		mu.Unlock()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f := Start(Config{Listener: ln, Logger: zerolog.New(zerolog.NewTestWriter(t)),
		Leader: func(context.Context) (string, uint64, error) {
			mu.Lock()
			defer mu.Unlock()
			return addr, gen, nil
		},
		Moved: func() <-chan struct{} {
			mu.Lock()
			defer mu.Unlock()
			return changed
		}})
	t.Cleanup(func() { _ = f.Stop(context.Background()) })
	c := enginetest.Dial(t, f.Addr().String())
	const sent = "use a\r\nput 0 0 60 2\r\nhi\r\n"
	c.Send(sent)
	enginetest.Eventually(t, "the commands carried to the hung leader", func() bool { return received.Load() == int64(len(sent)) })
	wake(hung.Addr().String(), 1) // spurious: the same generation
	wake(second.Addr().String(), 2)
	c.Expect("INTERNAL_ERROR\r\nINTERNAL_ERROR\r\n")
	c.Do("list-tube-used\r\nput 0 0 60 2\r\nok\r\n", "USING default\r\nINSERTED 1\r\n")
	assert.Equal(t, int64(1), accepts.Load(), "the spurious wake-up did not move the connection")
}
