package engine

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/stalkd/stalkd/jobs"
	"github.com/stalkd/stalkd/wal"
)

// openF0 opens a -f0 journal in dir and a queue replayed from it.
func openF0(t *testing.T, dir string) (*wal.Log, *jobs.Queue) {
	t.Helper()
	l, err := wal.Open(dir, wal.Options{Logger: zerolog.New(zerolog.NewTestWriter(t))})
	require.NoError(t, err)
	jq := jobs.New(jobs.Config{Journal: l})
	require.NoError(t, l.Replay(jq))
	return l, jq
}

// diskDir is a temporary directory on a filesystem whose fsync takes real
// time: the lone client is marked alone by a commit round that finds it
// waiting, which a tmpfs fsync (instant) can finish before the client
// registers. On tmpfs it falls back to a directory beside the package.
func diskDir(t *testing.T) string {
	dir := t.TempDir()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil || st.Type != unix.TMPFS_MAGIC {
		return dir
	}
	dir, err := os.MkdirTemp(".", "inline-test-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// A lone -f0 client over TCP: every put is acknowledged, some of them by a
// commit the event loop ran itself, and all of them are in the journal
// after a restart.
func TestLoneClientF0PutsCommitInlineAndSurviveRestart(t *testing.T) {
	dir := diskDir(t)
	l, jq := openF0(t, dir)
	s := startBackend(t, Backend{Queue: jq}, func(c *Config) { c.EventLoops = 1 })
	c := dial(t, s)
	const n = 50
	for i := range n {
		c.Do(fmt.Sprintf("put 0 0 60 %d\r\n%s\r\n", len(fmt.Sprint(i)), fmt.Sprint(i)), fmt.Sprintf("INSERTED %d\r\n", i+1))
	}
	m := l.Metrics()
	// The first put is committed by the writer (nothing marks the client as
	// alone before a commit round served it alone); later ones inline.
	assert.Positive(t, m.InlineCommits, "the lone client's puts committed on its event loop")
	assert.GreaterOrEqual(t, m.FsyncCount, m.InlineCommits, "every inline commit fsynced")
	c.Hangup()
	require.NoError(t, l.Close()) // the server stays up, idle, until the test ends

	l2, jq2 := openF0(t, dir)
	defer l2.Close()
	s2 := startBackend(t, Backend{Queue: jq2})
	c2 := dial(t, s2)
	for i := range n {
		body := fmt.Sprint(i)
		c2.Do(fmt.Sprintf("peek %d\r\n", i+1), fmt.Sprintf("FOUND %d %d\r\n%s\r\n", i+1, len(body), body))
	}
}

// Two clients putting at the same time on one event loop still share
// fsyncs: once both wait for commits, neither commits inline, and the
// writer's batch covers both. GOMAXPROCS 1 keeps the writer from running
// before the loop has served what is in its sockets.
func TestTwoF0ClientsShareFsyncs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	dir := diskDir(t)
	l, jq := openF0(t, dir)
	defer l.Close()
	s := startBackend(t, Backend{Queue: jq}, func(c *Config) { c.EventLoops = 1 })
	a, b := dial(t, s), dial(t, s)
	// a alone first: it becomes the lone client, committing inline.
	for range 5 {
		a.Send("put 0 0 60 1\r\na\r\n")
		assert.Regexp(t, `^INSERTED \d+$`, a.Line())
	}
	// Then both, each round's puts sent before either reply is read. The
	// first rounds settle who is alone; after that every round is one
	// batch.
	const warm, rounds = 3, 20
	var base wal.Metrics
	for r := range warm + rounds {
		if r == warm {
			base = l.Metrics()
		}
		a.Send("put 0 0 60 1\r\na\r\n")
		b.Send("put 0 0 60 1\r\nb\r\n")
		assert.Regexp(t, `^INSERTED \d+$`, a.Line())
		assert.Regexp(t, `^INSERTED \d+$`, b.Line())
	}
	m := l.Metrics()
	fsyncs := m.FsyncCount - base.FsyncCount
	// One fsync per put (2*rounds) is what committing each put alone gives;
	// how many rounds fall into one batch depends on the scheduling of the
	// replies, so only a quarter of them is asked for.
	assert.LessOrEqual(t, fsyncs, uint64(2*rounds-rounds/4), "two clients' puts share fsyncs, not one per put")
	assert.Equal(t, base.InlineCommits, m.InlineCommits, "no inline commit while both clients wait")
}
