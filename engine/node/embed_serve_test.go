package node_test

import (
	"context"
	"testing"
	"time"

	"github.com/beanstalkd/go-beanstalk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine"
	"github.com/stalkd/stalkd/engine/embed"
	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/engine/node"
)

// TestEmbedServeBothWays: a persistent embedded queue served by a node
// (Config.Queue): jobs flow both ways between in-process calls and a
// remote beanstalk client, and closing the queue stops the node.
func TestEmbedServeBothWays(t *testing.T) {
	q, err := embed.Open(embed.Options{Dir: t.TempDir(), Logger: enginetest.Logger(t)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = q.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), enginetest.Timeout)
	defer cancel()
	n, err := node.Start(ctx, node.Config{Queue: q, Logger: enginetest.Logger(t),
		Engine: engine.Config{Addr: "127.0.0.1:0", EventLoops: 1}})
	require.NoError(t, err)
	assert.Same(t, q.Jobs(), n.Queue())

	c, err := beanstalk.Dial("tcp", n.Addr().String())
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
	id, err := q.Put(ctx, "down", []byte("from here"), embed.PutOptions{})
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
	case <-n.Done():
	case <-time.After(enginetest.Timeout):
		t.Fatal("Close did not stop the node")
	}
	_, err = node.Start(ctx, node.Config{Queue: q, Engine: engine.Config{Addr: "127.0.0.1:0"}})
	assert.ErrorIs(t, err, embed.ErrClosed)
}
