package engine

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
)

// startJournaled starts a server on a queue with a fake journal. The
// server hears of commits through the queue; nothing is polled.
func startJournaled(t *testing.T) (*Server, *enginetest.Journal) {
	j := &enginetest.Journal{}
	q := jobs.New(jobs.Config{Journal: j})
	s := startBackend(t, Backend{Queue: q})
	return s, j
}

// holding waits until n connections hold replies for a commit.
func holding(t *testing.T, s *Server, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		s.reg.mu.Lock()
		defer s.reg.mu.Unlock()
		return len(s.reg.holding) == n
	}, ioTimeout, time.Millisecond)
}

func TestRepliesWaitForCommit(t *testing.T) {
	s, j := startJournaled(t)
	c := dial(t, s)
	c.Send("put 0 0 10 1\r\nx\r\nuse foo\r\nlist-tube-used\r\nput 0 0 10 1\r\ny\r\n")
	holding(t, s, 1)
	// Commands after the held reply ran; only their replies wait.
	require.Eventually(t, func() bool { return j.Appended() == 2 }, ioTimeout, time.Millisecond)
	assert.Contains(t, s.Queue().ListTubes(nil), "foo")
	j.CommitAll()
	c.Expect("INSERTED 1\r\nUSING foo\r\nUSING foo\r\nINSERTED 2\r\n")
	holding(t, s, 0)
	c.Do("list-tube-used\r\n", "USING foo\r\n")
}

func TestCommitFailure(t *testing.T) {
	s, j := startJournaled(t)
	c := dial(t, s)
	c.Send("put 0 0 10 1\r\nx\r\n")
	holding(t, s, 1)
	j.CommitAll()
	c.Expect("INSERTED 1\r\n")
	c.Send("put 0 0 10 1\r\ny\r\ndelete 1\r\nlist-tube-used\r\n")
	holding(t, s, 1)
	require.Eventually(t, func() bool { return j.Appended() == 3 }, ioTimeout, time.Millisecond)
	j.Fail(errors.New("disk on fire"))
	c.Expect("OUT_OF_MEMORY\r\nINTERNAL_ERROR\r\nUSING default\r\n")
	// Once failed, a new change is answered at once.
	c.Do("delete 2\r\n", "INTERNAL_ERROR\r\n")
}

func TestJournalFull(t *testing.T) {
	s, j := startJournaled(t)
	j.SetFull(true)
	c := dial(t, s)
	c.Do("put 0 0 10 1\r\nx\r\nlist-tube-used\r\n", "OUT_OF_MEMORY\r\nUSING default\r\n")
}

func TestQuitWaitsForCommit(t *testing.T) {
	s, j := startJournaled(t)
	c := dial(t, s)
	c.Send("put 0 0 10 1\r\nx\r\nquit\r\nlist-tube-used\r\n")
	holding(t, s, 1)
	j.CommitAll()
	c.Expect("INSERTED 1\r\n")
	c.ExpectEOF()
}

func TestHalfCloseWaitsForCommit(t *testing.T) {
	s, j := startJournaled(t)
	c := dial(t, s)
	c.Send("put 0 0 10 1\r\nx\r\nlist-tube-used\r\n")
	holding(t, s, 1)
	c.CloseWrite()
	require.Eventually(t, func() bool { return s.reg.count() == 0 }, ioTimeout, time.Millisecond)
	j.CommitAll() // the finisher writes on a duplicate of the closed socket
	c.Expect("INSERTED 1\r\nUSING default\r\n")
	c.ExpectEOF()
}

// TestFailedJournalStopsReads: once the journal has failed, the queue holds
// changes that were never stored (a put answered OUT_OF_MEMORY is still in
// memory): commands that would show jobs are answered INTERNAL_ERROR, the
// others as before. Found by the robustness suite: a bury answered
// INTERNAL_ERROR was seen by peek-buried, and undone by the restart.
func TestFailedJournalStopsReads(t *testing.T) {
	s, j := startJournaled(t)
	c := dial(t, s)
	c.Send("put 0 0 10 1\r\nx\r\n")
	holding(t, s, 1)
	j.CommitAll()
	c.Expect("INSERTED 1\r\n")
	c.Do("peek 1\r\n", "FOUND 1 1\r\nx\r\n")
	c.Send("put 0 0 10 1\r\ny\r\n")
	holding(t, s, 1)
	j.Fail(errors.New("disk on fire"))
	c.Expect("OUT_OF_MEMORY\r\n")
	for _, cmd := range []string{"peek 2", "peek 1", "peek-ready", "peek-delayed", "peek-buried", "stats-job 1",
		"reserve-with-timeout 0", "reserve-job 1", "reserve"} {
		c.Do(cmd+"\r\n", "INTERNAL_ERROR\r\n")
	}
	c.Do("list-tube-used\r\n", "USING default\r\n")
	c.Send("stats\r\n")
	assert.Contains(t, c.Line(), "OK ", "stats still answered")
}

// fencedJournal is a fake journal with read fences (jobs.Fencer), as a
// cluster leader's: a fence is one more sequence number to commit.
type fencedJournal struct{ *enginetest.Journal }

func (j fencedJournal) Fence() uint64 {
	seq, _ := j.Append(jobs.Record{})
	return seq
}

// TestReadsWaitForTheFence: with a journal that fences reads, a peek,
// stats-job or TIMED_OUT is sent once its fence commits, and answered
// INTERNAL_ERROR if the journal fails first (a deposed leader never
// answers from its stale queue).
func TestReadsWaitForTheFence(t *testing.T) {
	j := fencedJournal{&enginetest.Journal{}}
	s := startBackend(t, Backend{Queue: jobs.New(jobs.Config{Journal: j})})
	c := dial(t, s)
	c.Send("put 0 0 10 1\r\nx\r\n")
	holding(t, s, 1)
	j.CommitAll()
	c.Expect("INSERTED 1\r\n")
	c.Send("peek 1\r\nstats-job 9\r\nwatch other\r\nignore default\r\nreserve-with-timeout 0\r\n")
	holding(t, s, 1)
	require.Eventually(t, func() bool { return j.Appended() >= 4 }, ioTimeout, time.Millisecond)
	j.CommitAll()
	c.Expect("FOUND 1 1\r\nx\r\nNOT_FOUND\r\nWATCHING 2\r\nWATCHING 1\r\nTIMED_OUT\r\n")
	c.Send("peek 1\r\n")
	holding(t, s, 1)
	j.Fail(errors.New("leadership lost"))
	c.Expect("INTERNAL_ERROR\r\n")
}

// TestNoopChangesWaitForTheFence: a change that changes nothing (NOT_FOUND,
// KICKED 0) only reports what the queue holds: with a fencing journal its
// reply waits for the fence, and is INTERNAL_ERROR if leadership is lost
// first (a deposed leader's queue may hold a kick never committed).
func TestNoopChangesWaitForTheFence(t *testing.T) {
	j := fencedJournal{&enginetest.Journal{}}
	s := startBackend(t, Backend{Queue: jobs.New(jobs.Config{Journal: j})})
	c := dial(t, s)
	c.Send("delete 9\r\nkick 5\r\nkick-job 9\r\ntouch 9\r\n")
	holding(t, s, 1)
	require.Eventually(t, func() bool { return j.Appended() >= 4 }, ioTimeout, time.Millisecond)
	j.CommitAll()
	c.Expect("NOT_FOUND\r\nKICKED 0\r\nNOT_FOUND\r\nNOT_FOUND\r\n")
	holding(t, s, 0)
	c.Send("kick 1\r\n")
	holding(t, s, 1)
	j.Fail(errors.New("leadership lost"))
	c.Expect("INTERNAL_ERROR\r\n")
}
