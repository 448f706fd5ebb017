package engine_test

import (
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/engine/enginetest/inproc"
	"github.com/stalkd/stalkd/jobs"
)

// Tube policies seen by unchanged clients, over TCP.

// TestPolicyDeadLetterOverTCP: a worker (go-beanstalk) that always releases
// its job sees it land in the dead-letter tube after max_reserves reserves,
// with its id and body.
func TestPolicyDeadLetterOverTCP(t *testing.T) {
	srv := inproc.Start(t, engine.Config{})
	require.NoError(t, srv.Queue().SetPolicy("work", jobs.Policy{MaxReserves: 3, DeadLetter: "work-dead"}))
	c, err := beanstalk.DialTimeout("tcp", srv.Addr().String(), enginetest.Timeout)
	require.NoError(t, err)
	defer c.Close()

	work := beanstalk.NewTube(c, "work")
	id, err := work.Put([]byte("flaky"), 10, 0, time.Minute)
	require.NoError(t, err)
	worker := beanstalk.NewTubeSet(c, "work")
	for i := 0; i < 3; i++ {
		rid, body, err := worker.Reserve(enginetest.Timeout)
		require.NoError(t, err, "reserve %d", i+1)
		require.Equal(t, id, rid)
		require.Equal(t, "flaky", string(body))
		require.NoError(t, c.Release(rid, 10, 0))
	}
	_, _, err = worker.Reserve(0)
	assert.ErrorIs(t, err, beanstalk.ErrTimeout, "the job left the tube")

	dead := beanstalk.NewTubeSet(c, "work-dead")
	rid, body, err := dead.Reserve(enginetest.Timeout)
	require.NoError(t, err)
	assert.Equal(t, id, rid)
	assert.Equal(t, "flaky", string(body))
	st, err := c.StatsJob(id)
	require.NoError(t, err)
	assert.Equal(t, "work-dead", st["tube"])
	assert.Equal(t, "1", st["reserves"], "a fresh count: one reserve in the dead-letter tube")
	assert.Equal(t, "10", st["pri"])
	require.NoError(t, c.Delete(id))

	ts, err := srv.Queue().StatsTube([]byte("work"))
	require.NoError(t, err)
	assert.Equal(t, uint64(1), ts.DeadLettered)
}

// TestPolicyOverflowOverTCP: a put into a tube at its max_ready gets the
// protocol's own put replies, per overflow mode: OUT_OF_MEMORY (reject,
// the default), BURIED <id> (bury: stored, buried) or INSERTED <id>
// (dead_letter: stored in the dead-letter tube); go-beanstalk sees the
// first as its typed ErrOOM.
func TestPolicyOverflowOverTCP(t *testing.T) {
	srv := inproc.Start(t, engine.Config{})
	q := srv.Queue()
	require.NoError(t, q.SetPolicy("capped", jobs.Policy{MaxReady: 2}))
	require.NoError(t, q.SetPolicy("bury", jobs.Policy{MaxReady: 1, Overflow: jobs.OverflowBury}))
	require.NoError(t, q.SetPolicy("spill", jobs.Policy{MaxReady: 1, Overflow: jobs.OverflowDeadLetter, DeadLetter: "spilled"}))
	c := enginetest.Dial(t, srv.Addr().String())
	c.Do("use capped\r\n", "USING capped\r\n")
	c.Do("put 0 0 60 1\r\na\r\n", "INSERTED 1\r\n")
	c.Do("put 0 5 60 1\r\nb\r\n", "INSERTED 2\r\n") // a delayed job counts too
	c.Do("put 0 0 60 1\r\nc\r\n", "OUT_OF_MEMORY\r\n")
	c.Do("peek 3\r\n", "NOT_FOUND\r\n") // nothing stored (the id was spent)
	c.Do("watch capped\r\n", "WATCHING 2\r\n")
	c.Do("reserve-with-timeout 0\r\n", "RESERVED 1 1\r\na\r\n")
	c.Do("put 0 0 60 1\r\nd\r\n", "INSERTED 4\r\n") // a reserved job does not count

	c.Do("use bury\r\n", "USING bury\r\n")
	c.Do("put 0 0 60 1\r\ne\r\n", "INSERTED 5\r\n")
	c.Do("put 7 0 60 1\r\nf\r\n", "BURIED 6\r\n")
	c.Do("peek-buried\r\n", "FOUND 6 1\r\nf\r\n")

	c.Do("use spill\r\n", "USING spill\r\n")
	c.Do("put 0 0 60 1\r\ng\r\n", "INSERTED 7\r\n")
	c.Do("put 0 0 60 1\r\nh\r\n", "INSERTED 8\r\n")
	c.Do("use spilled\r\n", "USING spilled\r\n")
	c.Do("peek-ready\r\n", "FOUND 8 1\r\nh\r\n")

	gc, err := beanstalk.DialTimeout("tcp", srv.Addr().String(), enginetest.Timeout)
	require.NoError(t, err)
	defer gc.Close()
	_, err = beanstalk.NewTube(gc, "capped").Put([]byte("x"), 0, 0, time.Minute)
	require.ErrorIs(t, err, beanstalk.ErrOOM, "a typed error the client knows: try again later")
	// go-beanstalk v0.2.0 knows BURIED only bare (release's reply): a put's
	// BURIED <id> reaches its caller as an untyped "unknown response"
	// (engine/COMPATIBILITY.md has every client's handling).
	_, err = beanstalk.NewTube(gc, "bury").Put([]byte("y"), 0, 0, time.Minute)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unknown response: BURIED ")

	ts, err := q.StatsTube([]byte("capped"))
	require.NoError(t, err)
	assert.Equal(t, uint64(2), ts.RefusedFull)
	ts, err = q.StatsTube([]byte("bury"))
	require.NoError(t, err)
	assert.Equal(t, uint64(2), ts.Overflowed, "raw and go-beanstalk: both stored")
	assert.Equal(t, int64(2), ts.Buried)
}
