package front

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/enginetest"
)

// directTo is a Config.Direct that gives every connection to srv while it
// is the leader in cur, as the daemon does with its own engine, and turns
// what srv hands back into a Handoff of srv's generation.
func directTo(srv *engine.Server, cur *atomic.Pointer[engine.Server], token string) func(net.Conn, func(*Handoff)) bool {
	gen := uint64(srv.Addr().(*net.TCPAddr).Port) // currentLeader's generations
	return func(c net.Conn, back func(*Handoff)) bool {
		if cur.Load() != srv {
			return false
		}
		return srv.Adopt(c, func(d *engine.Detached) {
			if d == nil {
				back(nil)
				return
			}
			h := &Handoff{Conn: d.Conn, Gen: gen, Unread: d.Unread, Skip: d.Skip, Owed: d.Owed, Use: d.Use, Watch: d.Watch}
			if d.Authed {
				h.Auth = []byte("auth " + token + "\r\n")
			}
			back(h)
		})
	}
}

func startDirectFront(t *testing.T, cur *atomic.Pointer[engine.Server], direct func(net.Conn, func(*Handoff)) bool) *Front {
	return startFrontConfig(t, Config{Leader: currentLeader(cur), Wait: 10 * time.Second, Direct: direct})
}

// A client of the leader's own node is served by the leader's engine
// directly; when that engine stops (leadership lost), the connection goes
// on through the front to the next leader: the reserve it was waiting in
// is answered INTERNAL_ERROR, its auth and tubes are replayed, and the
// command it had sent behind the reserve is run by the new leader.
func TestFrontDirectHandedBackOnLeaderChange(t *testing.T) {
	auth := func(c *engine.Config) { c.AuthTokens = []string{"sesame"} }
	a, b := startLeader(t, auth), startLeader(t, auth)
	var cur atomic.Pointer[engine.Server]
	cur.Store(a)
	f := startDirectFront(t, &cur, directTo(a, &cur, "sesame"))

	c := enginetest.Dial(t, f.Addr().String())
	c.Do("auth sesame\r\nuse foo\r\nwatch bar\r\n", "AUTHENTICATED\r\nUSING foo\r\nWATCHING 2\r\n")
	onA := enginetest.Dial(t, a.Addr().String())
	onA.Do("auth sesame\r\n", "AUTHENTICATED\r\n")
	// Served by a itself: a counts one connection besides onA, and no
	// carried connection reached b.
	assert.Equal(t, int64(2), onA.Stat("current-connections"))
	assert.Equal(t, int64(1), f.clients.Load())

	c.Send("reserve\r\nlist-tube-used\r\n")
	enginetest.Eventually(t, "the direct client's reserve waits on a", func() bool {
		return onA.Stat("current-waiting") == 1
	})
	cur.Store(b)
	require.NoError(t, a.Stop(context.Background()))

	c.Expect("INTERNAL_ERROR\r\nUSING foo\r\n")
	c.Do("list-tubes-watched\r\n", "OK 20\r\n---\n- default\n- bar\n\r\n")
	c.Do("put 0 0 60 2\r\nhi\r\n", "INSERTED 1\r\n")
	onB := enginetest.Dial(t, b.Addr().String())
	onB.Do("auth sesame\r\n", "AUTHENTICATED\r\n")
	assert.Equal(t, "1", onB.Stats("stats-tube foo")["current-jobs-ready"], "the put reached b")
	assert.Equal(t, int64(1), f.clients.Load())
}

// The rest of a put whose body a stopping engine had begun is skipped, the
// put answered INTERNAL_ERROR, and what follows it carried.
func TestFrontDirectSkipsABegunPut(t *testing.T) {
	a, b := startLeader(t), startLeader(t)
	var cur atomic.Pointer[engine.Server]
	cur.Store(a)
	var backs atomic.Int32
	direct := directTo(a, &cur, "")
	f := startDirectFront(t, &cur, func(c net.Conn, back func(*Handoff)) bool {
		return direct(c, func(h *Handoff) {
			if h != nil {
				backs.Add(1)
				h.Skip, h.Owed = 5, 1 // as if a had read "put 0 0 60 5\r\nab"
			}
			back(h)
		})
	})
	c := enginetest.Dial(t, f.Addr().String())
	c.Do("use foo\r\n", "USING foo\r\n")
	cur.Store(b)
	require.NoError(t, a.Stop(context.Background()))
	enginetest.Eventually(t, "a hands the connection back", func() bool { return backs.Load() == 1 })
	c.Send("cde\r\nlist-tube-used\r\n")
	c.Expect("INTERNAL_ERROR\r\nUSING foo\r\n")
}

// A direct connection that ends is counted out; one offered while the
// engine is not the leader is carried.
func TestFrontDirectEndsAndFallsBack(t *testing.T) {
	a, b := startLeader(t), startLeader(t)
	var cur atomic.Pointer[engine.Server]
	cur.Store(a)
	f := startDirectFront(t, &cur, directTo(a, &cur, ""))
	c := enginetest.Dial(t, f.Addr().String())
	c.Do("list-tube-used\r\n", "USING default\r\n")
	assert.Equal(t, int64(1), f.clients.Load())
	c.Send("quit\r\n")
	enginetest.Eventually(t, "the direct connection is counted out", func() bool { return f.clients.Load() == 0 })

	cur.Store(b) // a is no longer the leader: carried to b
	c2 := enginetest.Dial(t, f.Addr().String())
	c2.Do("use viab\r\n", "USING viab\r\n")
	onB := enginetest.Dial(t, b.Addr().String())
	assert.Equal(t, "1", onB.Stats("stats-tube viab")["current-using"])
}

// A client that has sent nothing costs the leader no connection: the
// front dials at the first command.
func TestFrontIdleClientCostsNoUpstream(t *testing.T) {
	leader := startLeader(t)
	f := startFront(t, 10*time.Second, fixedLeader(leader.Addr().String()))
	var idle []*enginetest.Conn
	for range 5 {
		idle = append(idle, enginetest.Dial(t, f.Addr().String()))
	}
	enginetest.Eventually(t, "the front accepted every client", func() bool { return f.clients.Load() == 5 })
	onLeader := enginetest.Dial(t, leader.Addr().String())
	assert.Equal(t, int64(1), onLeader.Stat("current-connections"), "only this one")
	idle[0].Do("list-tube-used\r\n", "USING default\r\n")
	assert.Equal(t, int64(2), onLeader.Stat("current-connections"), "the client that spoke is carried")
}
