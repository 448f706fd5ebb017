package engine

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// fakeJournal commits only when the test says so.
type fakeJournal struct {
	mu             sync.Mutex
	seq, committed uint64
	err            error
	full           bool
	subs           []func()
}

func (j *fakeJournal) Append(jobs.Record) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.full {
		return 0, jobs.ErrNoSpace
	}
	j.seq++
	return j.seq, nil
}

func (j *fakeJournal) Committed() (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.committed, j.err
}

func (j *fakeJournal) Subscribe(fn func()) {
	j.mu.Lock()
	j.subs = append(j.subs, fn)
	j.mu.Unlock()
}

func (j *fakeJournal) File(uint64) int { return 0 }

func (j *fakeJournal) notify() {
	j.mu.Lock()
	subs := append([]func(){}, j.subs...)
	j.mu.Unlock()
	for _, fn := range subs {
		fn()
	}
}

// commitAll commits everything appended so far.
func (j *fakeJournal) commitAll() {
	j.mu.Lock()
	j.committed = j.seq
	j.mu.Unlock()
	j.notify()
}

// commit commits up to seq (or fails with err) and notifies.
func (j *fakeJournal) commit(seq uint64, err error) {
	j.mu.Lock()
	j.committed, j.err = seq, err
	j.mu.Unlock()
	j.notify()
}

// fail makes every uncommitted record fail.
func (j *fakeJournal) fail(err error) {
	j.mu.Lock()
	j.err = err
	j.mu.Unlock()
	j.notify()
}

func (j *fakeJournal) appended() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.seq
}

// startJournaled starts a server on a queue with a fake journal. The
// server hears of commits through the queue; nothing is polled.
func startJournaled(t *testing.T) (*Server, *fakeJournal) {
	j := &fakeJournal{}
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
	require.Eventually(t, func() bool { return j.appended() == 2 }, ioTimeout, time.Millisecond)
	assert.Contains(t, s.Queue().ListTubes(nil), "foo")
	j.commitAll()
	c.Expect("INSERTED 1\r\nUSING foo\r\nUSING foo\r\nINSERTED 2\r\n")
	holding(t, s, 0)
	c.Do("list-tube-used\r\n", "USING foo\r\n")
}

func TestCommitFailure(t *testing.T) {
	s, j := startJournaled(t)
	c := dial(t, s)
	c.Send("put 0 0 10 1\r\nx\r\n")
	holding(t, s, 1)
	j.commitAll()
	c.Expect("INSERTED 1\r\n")
	c.Send("put 0 0 10 1\r\ny\r\ndelete 1\r\nlist-tube-used\r\n")
	holding(t, s, 1)
	require.Eventually(t, func() bool { return j.appended() == 3 }, ioTimeout, time.Millisecond)
	j.fail(errors.New("disk on fire"))
	c.Expect("OUT_OF_MEMORY\r\nINTERNAL_ERROR\r\nUSING default\r\n")
	// Once failed, a new change is answered at once.
	c.Do("delete 2\r\n", "INTERNAL_ERROR\r\n")
}

func TestJournalFull(t *testing.T) {
	s, j := startJournaled(t)
	j.mu.Lock()
	j.full = true
	j.mu.Unlock()
	c := dial(t, s)
	c.Do("put 0 0 10 1\r\nx\r\nlist-tube-used\r\n", "OUT_OF_MEMORY\r\nUSING default\r\n")
}

func TestQuitWaitsForCommit(t *testing.T) {
	s, j := startJournaled(t)
	c := dial(t, s)
	c.Send("put 0 0 10 1\r\nx\r\nquit\r\nlist-tube-used\r\n")
	holding(t, s, 1)
	j.commitAll()
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
	j.commitAll() // the finisher writes on a duplicate of the closed socket
	c.Expect("INSERTED 1\r\nUSING default\r\n")
	c.ExpectEOF()
}
