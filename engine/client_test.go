package engine

import (
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The ordinary flows, through the real client library.

func dialClient(t *testing.T, s *Server) *beanstalk.Conn {
	t.Helper()
	c, err := beanstalk.DialTimeout("tcp", addrOf(t, s), ioTimeout)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestClientPutReserveDelete(t *testing.T) {
	c := dialClient(t, startServer(t))
	id, err := c.Put([]byte("hello"), 10, 0, time.Minute)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), id)

	rid, body, err := c.Reserve(ioTimeout)
	require.NoError(t, err)
	assert.Equal(t, id, rid)
	assert.Equal(t, "hello", string(body))

	require.NoError(t, c.Touch(id))
	require.NoError(t, c.Delete(id))
	assert.ErrorIs(t, c.Delete(id), beanstalk.ErrNotFound)
	_, _, err = c.Reserve(0)
	assert.ErrorIs(t, err, beanstalk.ErrTimeout)
}

func TestClientReleaseBuryKick(t *testing.T) {
	c := dialClient(t, startServer(t))
	id, err := c.Put([]byte("job"), 5, 0, time.Minute)
	require.NoError(t, err)
	_, _, err = c.Reserve(ioTimeout)
	require.NoError(t, err)
	require.NoError(t, c.Release(id, 7, 0))

	_, _, err = c.Reserve(ioTimeout)
	require.NoError(t, err)
	require.NoError(t, c.Bury(id, 9))
	bid, body, err := c.PeekBuried()
	require.NoError(t, err)
	assert.Equal(t, id, bid)
	assert.Equal(t, "job", string(body))

	n, err := c.Kick(10)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	st, err := c.StatsJob(id)
	require.NoError(t, err)
	assert.Equal(t, "ready", st["state"])
	assert.Equal(t, "9", st["pri"])
	assert.Equal(t, "1", st["buries"])
	assert.Equal(t, "1", st["kicks"])
	assert.Equal(t, "1", st["releases"])
	assert.Equal(t, "2", st["reserves"])

	assert.ErrorIs(t, c.Bury(id, 1), beanstalk.ErrNotFound, "bury needs a reservation")
}

func TestClientKickJobAndDelayed(t *testing.T) {
	c := dialClient(t, startServer(t))
	id, err := c.Put([]byte("later"), 0, time.Hour, time.Minute)
	require.NoError(t, err)
	did, _, err := c.PeekDelayed()
	require.NoError(t, err)
	assert.Equal(t, id, did)
	require.NoError(t, c.KickJob(id))
	rid, _, err := c.PeekReady()
	require.NoError(t, err)
	assert.Equal(t, id, rid)
	body, err := c.ReserveJob(id)
	require.NoError(t, err)
	assert.Equal(t, "later", string(body))
	body, err = c.Peek(id)
	require.NoError(t, err)
	assert.Equal(t, "later", string(body))
}

func TestClientTubes(t *testing.T) {
	s := startServer(t)
	c := dialClient(t, s)
	emails := beanstalk.NewTube(c, "emails")
	id, err := emails.Put([]byte("to: a"), 0, 0, time.Minute)
	require.NoError(t, err)

	tubes, err := c.ListTubes()
	require.NoError(t, err)
	assert.Equal(t, []string{"default", "emails"}, tubes)

	_, _, err = c.Reserve(0) // watches default only
	assert.ErrorIs(t, err, beanstalk.ErrTimeout)

	ts := beanstalk.NewTubeSet(c, "emails", "other")
	rid, body, err := ts.Reserve(ioTimeout)
	require.NoError(t, err)
	assert.Equal(t, id, rid)
	assert.Equal(t, "to: a", string(body))

	st, err := emails.Stats()
	require.NoError(t, err)
	assert.Equal(t, "emails", st["name"], "an ordinary name is bare, as in 1.12: clients that split lines read it as is")
	assert.Equal(t, "1", st["current-jobs-reserved"])
	assert.Equal(t, "1", st["total-jobs"])
}

func TestClientPause(t *testing.T) {
	c := dialClient(t, startServer(t))
	tube := beanstalk.NewTube(c, "p")
	_, err := tube.Put([]byte("x"), 0, 0, time.Minute)
	require.NoError(t, err)
	require.NoError(t, tube.Pause(time.Hour))
	st, err := tube.Stats()
	require.NoError(t, err)
	assert.Equal(t, "3600", st["pause"])
	assert.Equal(t, "1", st["cmd-pause-tube"])

	ts := beanstalk.NewTubeSet(c, "p")
	_, _, err = ts.Reserve(0)
	assert.ErrorIs(t, err, beanstalk.ErrTimeout, "a paused tube gives nothing")
	require.NoError(t, tube.Pause(0))
	require.Eventually(t, func() bool {
		_, _, err := ts.Reserve(0)
		return err == nil
	}, ioTimeout, time.Millisecond, "pause 0 ends on the next tick")
}

func TestClientStats(t *testing.T) {
	s := startServer(t)
	c := dialClient(t, s)
	_, err := c.Put([]byte("a"), 1, 0, time.Minute)
	require.NoError(t, err)
	st, err := c.Stats()
	require.NoError(t, err)
	assert.Equal(t, "1", st["current-jobs-urgent"])
	assert.Equal(t, "1", st["cmd-put"])
	assert.Equal(t, "1", st["cmd-stats"], "stats counts itself")
	assert.Equal(t, "1", st["current-producers"])
	assert.Equal(t, "65535", st["max-job-size"])
	assert.Equal(t, `"1.13"`, st["version"], "the protocol version, which clients gate features on")
	assert.Equal(t, "false", st["draining"])
	assert.Len(t, st["id"], 16)

	s.Queue().SetDraining(true)
	_, err = c.Put([]byte("b"), 1, 0, time.Minute)
	assert.ErrorIs(t, err, beanstalk.ErrDraining)
	st, err = c.Stats()
	require.NoError(t, err)
	assert.Equal(t, "true", st["draining"])
	assert.Equal(t, "2", st["cmd-put"], "a refused put still counts")
}

// A line-splitting client (go-beanstalk) reads tube names that YAML would
// type as numbers, booleans or null back exactly: they go out bare, as 1.12
// sends them (issue 19; quoting them broke pheanstalk and Laravel). The
// list-tubes-watched bytes are pinned against 1.12 in difftest.
func TestClientTubeNamesRoundTrip(t *testing.T) {
	c := dialClient(t, startServer(t))
	names := []string{"0.5", "123", "007", "yes", "null", "a-b", "foo.bar"}
	ids := map[string]uint64{}
	for _, n := range names {
		id, err := beanstalk.NewTube(c, n).Put([]byte("x"), 0, 0, time.Minute)
		require.NoError(t, err)
		ids[n] = id
	}
	all, err := c.ListTubes()
	require.NoError(t, err)
	assert.Equal(t, append([]string{"default"}, names...), all)
	for _, n := range names {
		st, err := beanstalk.NewTube(c, n).Stats()
		require.NoError(t, err)
		assert.Equal(t, n, st["name"])
		js, err := c.StatsJob(ids[n])
		require.NoError(t, err)
		assert.Equal(t, n, js["tube"])
	}
}
