package raft

import (
	"sync"
	"testing"
	"time"

	hraft "github.com/hashicorp/raft"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
)

// fakeRaft records the entries applied. Each Apply first signals entered
// and waits for a value on gate (if gate is set), and returns a future the
// test resolves.
type fakeRaft struct {
	gate    chan struct{}
	entered chan struct{}
	mu      sync.Mutex
	entries [][]jobs.Record
	futures []*fakeFuture
	applied chan int // receives the number of entries applied so far
}

func (r *fakeRaft) Apply(cmd []byte, _ time.Duration) hraft.ApplyFuture {
	if r.gate != nil {
		r.entered <- struct{}{}
		<-r.gate
	}
	var recs []jobs.Record
	if err := decodeEntry(cmd, nil, func(rec *jobs.Record) error { recs = append(recs, *rec); return nil }); err != nil {
		panic(err)
	}
	f := &fakeFuture{done: make(chan error, 1)}
	r.mu.Lock()
	r.entries = append(r.entries, recs)
	r.futures = append(r.futures, f)
	n := len(r.entries)
	r.mu.Unlock()
	r.applied <- n
	return f
}

// VerifyLeader is a round the test resolves, like an entry with no records.
func (r *fakeRaft) VerifyLeader() hraft.Future {
	if r.gate != nil {
		r.entered <- struct{}{}
		<-r.gate
	}
	f := &fakeFuture{done: make(chan error, 1)}
	r.mu.Lock()
	r.entries = append(r.entries, nil)
	r.futures = append(r.futures, f)
	n := len(r.entries)
	r.mu.Unlock()
	r.applied <- n
	return f
}

func newFakeRaft(_ *testing.T, gated bool) *fakeRaft {
	r := &fakeRaft{applied: make(chan int, 100)}
	if gated {
		r.gate, r.entered = make(chan struct{}), make(chan struct{}, 100)
	}
	return r
}

// closeJournal closes j after unblocking whatever the test left blocked.
func closeJournal(r *fakeRaft, j *Journal) {
	if r.gate != nil {
		close(r.gate)
	}
	r.mu.Lock()
	for _, f := range r.futures {
		select {
		case f.done <- hraft.ErrRaftShutdown:
		default:
		}
	}
	r.mu.Unlock()
	j.Close()
}

func (r *fakeRaft) future(i int) *fakeFuture {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.futures[i]
}

type fakeFuture struct{ done chan error }

func (f *fakeFuture) Error() error          { return <-f.done }
func (f *fakeFuture) Index() uint64         { return 0 }
func (f *fakeFuture) Response() interface{} { return nil }

func putRec(id uint64) jobs.Record {
	return jobs.Record{Kind: jobs.RecPut, ID: id, Tube: "default", State: jobs.Ready, TTR: time.Second, Body: []byte("x")}
}

// TestJournalGroupCommit: records that arrive while raft is busy go out as
// one entry; Committed advances entry by entry, in order, and subscribers
// hear of each advance.
func TestJournalGroupCommit(t *testing.T) {
	r := newFakeRaft(t, true)
	counts := new(proposed)
	j := newJournal(r, 1<<20, 2, time.Second, counts)
	defer closeJournal(r, j)
	var mu sync.Mutex
	seen := 0
	j.Subscribe(func() { mu.Lock(); seen++; mu.Unlock() })

	seq, err := j.Append(putRec(1))
	require.NoError(t, err)
	assert.Equal(t, uint64(1), seq)
	<-r.entered // raft is busy with the first entry: just record 1
	for id := uint64(2); id <= 50; id++ {
		seq, err := j.Append(putRec(id))
		require.NoError(t, err)
		assert.Equal(t, id, seq)
	}
	r.gate <- struct{}{}
	assert.Equal(t, 1, <-r.applied)
	<-r.entered // the second: everything that piled up meanwhile
	r.gate <- struct{}{}
	assert.Equal(t, 2, <-r.applied)
	r.mu.Lock()
	assert.Len(t, r.entries[0], 1)
	assert.Len(t, r.entries[1], 49)
	assert.Equal(t, uint64(50), r.entries[1][48].ID)
	r.mu.Unlock()
	assert.Equal(t, uint64(2), counts.entries.Load())
	assert.Equal(t, uint64(50), counts.records.Load())

	c, err := j.Committed()
	require.NoError(t, err)
	assert.Equal(t, uint64(0), c, "nothing is committed before raft says so")
	r.future(0).done <- nil
	enginetest.Eventually(t, "commit of entry 1", func() bool { c, _ := j.Committed(); return c == 1 })
	r.future(1).done <- nil
	enginetest.Eventually(t, "commit of entry 2", func() bool { c, _ := j.Committed(); return c == 50 })
	mu.Lock()
	assert.Equal(t, 2, seen)
	mu.Unlock()
}

// TestJournalOneInFlight: with MaxInflight 1 the next entry is handed to
// raft only once the one in flight is applied; what arrives meanwhile
// waits, and goes out as one entry.
func TestJournalOneInFlight(t *testing.T) {
	r := newFakeRaft(t, false)
	j := newJournal(r, 1<<20, 1, time.Second, nil)
	defer closeJournal(r, j)

	_, err := j.Append(putRec(1))
	require.NoError(t, err)
	assert.Equal(t, 1, <-r.applied)
	for id := uint64(2); id <= 10; id++ {
		_, err := j.Append(putRec(id))
		require.NoError(t, err)
	}
	select {
	case n := <-r.applied:
		t.Fatalf("entry %d handed to raft while the first was in flight", n)
	case <-time.After(50 * time.Millisecond):
	}
	r.future(0).done <- nil
	assert.Equal(t, 2, <-r.applied)
	r.mu.Lock()
	assert.Len(t, r.entries[1], 9, "the records that waited go out as one entry")
	r.mu.Unlock()
	r.future(1).done <- nil
	enginetest.Eventually(t, "commit of both entries", func() bool { c, _ := j.Committed(); return c == 10 })
}

// TestJournalRefusesUnknownKinds: a record kind without an entry encoding
// is refused at Append (an error the edge answers INTERNAL_ERROR), never
// sent as something else; the journal goes on.
func TestJournalRefusesUnknownKinds(t *testing.T) {
	r := newFakeRaft(t, false)
	j := newJournal(r, 1<<20, 1, time.Second, nil)
	defer closeJournal(r, j)
	_, err := j.Append(jobs.Record{Kind: jobs.RecordKind(0x7f), ID: 1})
	require.ErrorIs(t, err, jobs.ErrJournal)
	_, err = j.Append(putRec(1))
	require.NoError(t, err)
	assert.Equal(t, 1, <-r.applied)
	r.future(0).done <- nil
	enginetest.Eventually(t, "the put commits", func() bool { c, _ := j.Committed(); return c == 1 })
}

// TestJournalLeadershipLost: a failed entry kills the journal: Committed
// reports the error, later appends are refused, commits stop.
func TestJournalLeadershipLost(t *testing.T) {
	r := newFakeRaft(t, false)
	j := newJournal(r, 1<<20, 4, time.Second, nil)
	defer closeJournal(r, j)
	_, err := j.Append(putRec(1))
	require.NoError(t, err)
	<-r.applied
	r.future(0).done <- hraft.ErrLeadershipLost
	enginetest.Eventually(t, "the failure", func() bool { _, err := j.Committed(); return err != nil })
	c, err := j.Committed()
	assert.Equal(t, uint64(0), c)
	assert.ErrorIs(t, err, jobs.ErrJournal)
	assert.ErrorIs(t, err, ErrLeadershipLost)
	_, err = j.Append(putRec(2))
	assert.ErrorIs(t, err, jobs.ErrJournal)

	q := jobs.New(jobs.Config{Journal: j, Replicated: true})
	done, err := q.Committed(1)
	assert.True(t, done)
	assert.ErrorIs(t, err, ErrLeadershipLost)
}

// TestJournalMaxBytes: one entry never holds more than MaxBatchBytes of
// records, but always at least one.
func TestJournalMaxBytes(t *testing.T) {
	r := newFakeRaft(t, true)
	one := recordSizeHint(&jobs.Record{Tube: "default", Body: []byte("x")})
	j := newJournal(r, 3*one, 8, time.Second, nil)
	defer closeJournal(r, j)
	_, _ = j.Append(putRec(1))
	<-r.entered
	for id := uint64(2); id <= 8; id++ {
		_, _ = j.Append(putRec(id))
	}
	r.gate <- struct{}{}
	for i := 0; i < 3; i++ {
		<-r.entered
		r.gate <- struct{}{}
	}
	for i := 1; i <= 4; i++ {
		assert.Equal(t, i, <-r.applied)
	}
	r.mu.Lock()
	var sizes []int
	for _, e := range r.entries {
		sizes = append(sizes, len(e))
	}
	r.mu.Unlock()
	assert.Equal(t, []int{1, 3, 3, 1}, sizes)
}

// TestJournalSharesBodies: the leader's FSM takes the body of a put from
// the queue's record instead of copying it, once, and only if the bytes
// are the same.
func TestJournalSharesBodies(t *testing.T) {
	r := newFakeRaft(t, false)
	j := newJournal(r, 1<<20, 4, time.Second, nil)
	defer closeJournal(r, j)
	rec := putRec(1)
	_, err := j.Append(rec)
	require.NoError(t, err)
	_, err = j.Append(putRec(2))
	require.NoError(t, err)
	<-r.applied
	entry := encodeEntry([]jobs.Record{rec, putRec(2)}, 0)
	var got []jobs.Record
	require.NoError(t, decodeEntry(entry, j.takeBody, func(r *jobs.Record) error { got = append(got, *r); return nil }))
	require.Len(t, got, 2)
	assert.Same(t, &rec.Body[0], &got[0].Body[0], "shared, not copied")
	assert.Nil(t, j.takeBody(1, rec.Body), "taken once")
	assert.Nil(t, j.takeBody(3, rec.Body), "never appended")
	_, err = j.Append(putRec(4))
	require.NoError(t, err)
	assert.Nil(t, j.takeBody(4, []byte("other")), "different bytes: copy")
}

// TestSignal: every waiter taken before a fire is woken by it; a wait taken
// after gets a fresh channel.
func TestSignal(t *testing.T) {
	var s signal
	a, b := s.wait(), s.wait()
	s.fire()
	<-a
	<-b
	c := s.wait()
	select {
	case <-c:
		t.Fatal("a wait after the fire is not woken by it")
	default:
	}
	s.fire()
	<-c
}
