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

// TestPolicyQueueFullOverTCP: a put into a tube at its max_ready gets
// QUEUE_FULL; a tube without the policy never sends it.
func TestPolicyQueueFullOverTCP(t *testing.T) {
	srv := inproc.Start(t, engine.Config{})
	require.NoError(t, srv.Queue().SetPolicy("capped", jobs.Policy{MaxReady: 2}))
	c := enginetest.Dial(t, srv.Addr().String())
	c.Do("use capped\r\n", "USING capped\r\n")
	c.Do("put 0 0 60 1\r\na\r\n", "INSERTED 1\r\n")
	c.Do("put 0 5 60 1\r\nb\r\n", "INSERTED 2\r\n") // a delayed job counts too
	c.Do("put 0 0 60 1\r\nc\r\n", "QUEUE_FULL\r\n")
	c.Do("peek 3\r\n", "NOT_FOUND\r\n") // nothing stored (the id was spent)
	c.Do("watch capped\r\n", "WATCHING 2\r\n")
	c.Do("reserve-with-timeout 0\r\n", "RESERVED 1 1\r\na\r\n")
	c.Do("put 0 0 60 1\r\nd\r\n", "INSERTED 4\r\n") // a reserved job does not count
	c.Do("use other\r\n", "USING other\r\n")
	for i := 0; i < 5; i++ {
		c.Send("put 0 0 60 1\r\ne\r\n")
		assert.Contains(t, c.Line(), "INSERTED ")
	}
	ts, err := srv.Queue().StatsTube([]byte("capped"))
	require.NoError(t, err)
	assert.Equal(t, uint64(1), ts.RefusedFull)
}
