package embed

import (
	"context"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/stalkd/stalkd/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A persistent queue served on a port: jobs flow both ways between
// in-process calls and a remote beanstalk client, and Close stops the
// server.
func TestEmbedServeBothWays(t *testing.T) {
	q := openTest(t, Options{Dir: t.TempDir(), Logger: testLogger(t)})
	ctx, cancel := context.WithTimeout(bg(), ioTimeout)
	defer cancel()
	srv, err := q.Serve(ctx, engine.Config{Addr: "127.0.0.1:0", Logger: testLogger(t), EventLoops: 1})
	require.NoError(t, err)
	assert.Same(t, q.Jobs(), srv.Queue())

	c, err := beanstalk.Dial("tcp", srv.Addr().String())
	require.NoError(t, err)
	defer c.Close()

	// Remote put, in-process reserve.
	remote := beanstalk.NewTube(c, "up")
	rid, err := remote.Put([]byte("from afar"), 1, 0, time.Minute)
	require.NoError(t, err)
	job, err := q.Reserve(ctx, "up")
	require.NoError(t, err)
	assert.Equal(t, rid, job.ID)
	assert.Equal(t, "from afar", string(job.Body))
	require.NoError(t, job.Delete(ctx))

	// In-process put, remote reserve: the remote sees the plain body.
	id, err := q.Put(ctx, "down", []byte("from here"), PutOptions{})
	require.NoError(t, err)
	got, body, err := beanstalk.NewTubeSet(c, "down").Reserve(10 * time.Second)
	require.NoError(t, err)
	assert.Equal(t, id, got)
	assert.Equal(t, "from here", string(body))
	st, err := q.StatsJob(id)
	require.NoError(t, err)
	assert.Equal(t, "reserved", st.State.String())

	// The served stats document reports the journal.
	stats, err := c.Stats()
	require.NoError(t, err)
	assert.NotEqual(t, "0", stats["binlog-current-index"])
	assert.Equal(t, "65535", stats["max-job-size"])

	require.NoError(t, q.Close())
	select {
	case <-srv.Done():
	case <-time.After(ioTimeout):
		t.Fatal("Close did not stop the server")
	}
	_, err = q.Serve(ctx, engine.Config{Addr: "127.0.0.1:0"})
	assert.ErrorIs(t, err, ErrClosed)
}
