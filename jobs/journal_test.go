package jobs

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeJournal records what the queue appends. fail, when set, refuses every
// record with that error.
type fakeJournal struct {
	mu        sync.Mutex
	recs      []Record
	seq       uint64
	fail      error
	committed uint64
	err       error
}

func (j *fakeJournal) Append(rec Record) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.fail != nil {
		return 0, j.fail
	}
	j.recs = append(j.recs, rec)
	j.seq++
	return j.seq, nil
}

func (j *fakeJournal) Committed() (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.committed, j.err
}

func (j *fakeJournal) Subscribe(func()) {}

func (j *fakeJournal) File(id uint64) int { return int(id) + 100 }

// take returns the records appended since the last call.
func (j *fakeJournal) take() []Record {
	j.mu.Lock()
	defer j.mu.Unlock()
	r := j.recs
	j.recs = nil
	return r
}

func newJournalFixture(t *testing.T) (*fixture, *fakeJournal) {
	clk := NewManualClock(t0)
	j := &fakeJournal{}
	return &fixture{t: t, clock: clk, q: New(Config{Clock: clk, Journal: j})}, j
}

// TestJournalRecords checks what each operation logs, step by step.
func TestJournalRecords(t *testing.T) {
	f, jr := newJournalFixture(t)
	s, _ := f.session()
	f.use(s, "jt")
	f.watch(s, "jt")
	f.ignore(s, "default")

	id, seq, err := s.Put(PutRequest{ID: f.q.NextID(), Pri: 3, Delay: 2 * time.Second, TTR: 4 * time.Second, Owned: bodyOf(1)})
	require.NoError(t, err)
	require.Equal(t, uint64(1), id)
	assert.Equal(t, uint64(1), seq)
	base := Record{ID: id, Tube: "jt", Pri: 3, Delay: 2 * time.Second, TTR: 4 * time.Second, Created: t0}
	put := base
	put.Kind, put.State, put.Deadline, put.Body = RecPut, Delayed, t0+int64(2*time.Second), bodyOf(id)
	assert.Equal(t, []Record{put}, jr.take())
	assert.Equal(t, id+100, uint64(f.jobStats(id).File))

	upd := func(state State, pri uint32, deadline int64, counters ...uint32) Record {
		r := base
		r.Kind, r.Tube, r.State, r.Pri, r.Deadline = RecUpdate, "", state, pri, deadline
		r.Reserves, r.Timeouts, r.Releases, r.Buries, r.Kicks = counters[0], counters[1], counters[2], counters[3], counters[4]
		return r
	}
	steps := []struct {
		name string
		do   func()
		want []Record
	}{
		{"kick-job of delayed", func() { _, err = s.KickJob(id) }, []Record{upd(Ready, 3, 0, 0, 0, 0, 0, 1)}},
		{"reserve", func() { f.reserve(s) }, nil},
		{"touch", func() { err = s.Touch(id) }, nil},
		{"ttr timeout", func() { f.advance(4*time.Second + 1) }, nil},
		{"reserve again", func() { f.reserve(s) }, nil},
		{"release with delay", func() { _, err = s.Release(id, 5, time.Second) }, func() []Record {
			r := upd(Delayed, 5, t0+int64(5*time.Second)+1, 2, 1, 1, 0, 1) // released at t0+4s+1
			r.Delay = time.Second
			return []Record{r}
		}()},
		{"delay ends", func() { f.advance(time.Second) }, nil},
		{"reserve-job of ready", func() { _, _, err = s.ReserveJob(id) }, nil},
		{"release without delay", func() { _, err = s.Release(id, 6, 0) }, nil}, // filled below
		{"reserve a third time", func() { f.reserve(s) }, nil},
		{"bury", func() { _, err = s.Bury(id, 7) }, nil},
		{"kick", func() { _, _, err = s.Kick(5) }, nil},
		{"reserve and bury", func() { f.reserve(s); _, err = s.Bury(id, 7) }, nil},
		{"reserve-job of buried", func() { _, _, err = s.ReserveJob(id) }, nil},
		{"delete", func() { _, err = s.Delete(id) }, []Record{{Kind: RecDelete, ID: id}}},
	}
	// Counters: reserves, timeouts, releases, buries, kicks.
	withDelay := func(r Record) Record { r.Delay = 0; return r }
	steps[8].want = []Record{withDelay(upd(Ready, 6, 0, 3, 1, 2, 0, 1))}
	steps[10].want = []Record{withDelay(upd(Buried, 7, 0, 4, 1, 2, 1, 1))}
	steps[11].want = []Record{withDelay(upd(Ready, 7, 0, 4, 1, 2, 1, 2))}
	steps[12].want = []Record{withDelay(upd(Buried, 7, 0, 5, 1, 2, 2, 2))}
	steps[13].want = []Record{withDelay(upd(Ready, 7, 0, 5, 1, 2, 2, 2))}
	for _, st := range steps {
		err = nil
		st.do()
		require.NoError(t, err, st.name)
		assert.Equal(t, st.want, jr.take(), st.name)
	}
}

// A refused record leaves the queue as it was and surfaces the error.
func TestJournalFailureChangesNothing(t *testing.T) {
	f, jr := newJournalFixture(t)
	s, _ := f.session()
	held := f.put(s, 1, 0)
	f.reserve(s)
	buried := f.put(s, 2, 0)
	f.reserve(s)
	_, err := s.Bury(buried, 2)
	require.NoError(t, err)
	delayed := f.put(s, 3, time.Minute)
	ready := f.put(s, 4, 0)
	before := f.q.Stats()
	jobsBefore := map[uint64]JobStats{}
	for _, id := range []uint64{held, buried, delayed, ready} {
		jobsBefore[id] = f.jobStats(id)
	}
	jr.take()

	for _, fail := range []error{ErrNoSpace, ErrJournal} {
		jr.fail = fail
		ops := map[string]func() error{
			"put": func() error {
				_, _, err := s.Put(PutRequest{Owned: body("x")})
				return err
			},
			"delete":         func() error { _, err := s.Delete(ready); return err },
			"delete held":    func() error { _, err := s.Delete(held); return err },
			"release":        func() error { _, err := s.Release(held, 9, 0); return err },
			"release later":  func() error { _, err := s.Release(held, 9, time.Second); return err },
			"bury":           func() error { _, err := s.Bury(held, 9); return err },
			"kick":           func() error { _, _, err := s.Kick(1); return err },
			"kick-job":       func() error { _, err := s.KickJob(delayed); return err },
			"reserve-job":    func() error { _, _, err := s.ReserveJob(buried); return err },
			"reserve-job dl": func() error { _, _, err := s.ReserveJob(delayed); return err },
		}
		for name, op := range ops {
			assert.ErrorIs(t, op(), fail, name)
			assert.Equal(t, before, f.q.Stats(), name)
			for id, js := range jobsBefore {
				assert.Equal(t, js, f.jobStats(id), "%s: job %d", name, id)
			}
		}
	}
	assert.Empty(t, jr.take())
	assert.Equal(t, uint64(4), f.tubeStats("default").TotalJobs)
}

func TestCommitted(t *testing.T) {
	f, jr := newJournalFixture(t)
	done, err := f.q.Committed(0)
	assert.True(t, done)
	assert.NoError(t, err)
	jr.committed = 5
	for seq, want := range map[uint64]bool{4: true, 5: true, 6: false} {
		done, err = f.q.Committed(seq)
		assert.Equal(t, want, done, "seq %d", seq)
		assert.NoError(t, err)
	}
	jr.err = ErrJournal
	done, err = f.q.Committed(6)
	assert.True(t, done, "a failed journal settles every pending seq")
	assert.ErrorIs(t, err, ErrJournal)
	done, err = f.q.Committed(5)
	assert.True(t, done)
	assert.NoError(t, err, "committed before the failure")

	mem := New(Config{Clock: NewManualClock(t0)})
	done, err = mem.Committed(42)
	assert.True(t, done)
	assert.NoError(t, err)
}

func TestRestore(t *testing.T) {
	f, jr := newJournalFixture(t)
	now := t0
	rec := func(id uint64, tube string, st State, deadline int64) Record {
		return Record{Kind: RecPut, ID: id, Tube: tube, State: st, Pri: uint32(id), TTR: 0,
			Created: now - int64(time.Minute), Deadline: deadline, Reserves: 2, Buries: 1, Kicks: 3, Body: bodyOf(id)}
	}
	recs := []Record{
		rec(10, "r", Buried, 0),
		rec(4, "r", Ready, 0),
		rec(7, "r", Delayed, now+int64(5*time.Second)),
		rec(5, "r", Delayed, now-1), // its time has come: ready
		rec(12, "r", Buried, 0),
		rec(3, "other", Reserved, 0), // reservations do not survive
	}
	for _, r := range recs {
		require.NoError(t, f.q.Restore(r))
	}
	assert.Empty(t, jr.take(), "restore does not log")
	for id, want := range map[uint64]State{10: Buried, 4: Ready, 7: Delayed, 5: Ready, 12: Buried, 3: Ready} {
		js := f.jobStats(id)
		assert.Equal(t, want, js.State, "job %d", id)
		assert.Equal(t, time.Minute, js.Age, "created is kept")
		assert.Equal(t, time.Second, js.TTR)
		assert.Equal(t, uint32(2), js.Reserves)
		assert.Equal(t, uint32(1), js.Buries)
		assert.Equal(t, uint32(3), js.Kicks)
	}
	assert.Equal(t, 5*time.Second, f.jobStats(7).TimeLeft)
	assert.ElementsMatch(t, []string{"default", "r", "other"}, f.tubes())

	s, _ := f.session()
	f.use(s, "r")
	f.watch(s, "r")
	assert.Equal(t, uint64(10), f.found(s.PeekBuried()), "buried in restore order")
	assert.Equal(t, []uint64{4, 5}, f.reserveIDs(s, 2))
	n, _, err := s.Kick(9)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Equal(t, []uint64{10, 12}, f.reserveIDs(s, 2))
	f.advance(5 * time.Second)
	assert.Equal(t, Ready, f.state(7))
	assert.Equal(t, uint64(13), f.q.NextID(), "ids continue after the highest restored")

	assert.Error(t, f.q.Restore(rec(4, "r", Ready, 0)), "an id that exists")
	bad := rec(20, "r", Ready, 0)
	bad.Kind = RecUpdate
	assert.Error(t, f.q.Restore(bad))
	bad = rec(0, "r", Ready, 0)
	assert.Error(t, f.q.Restore(bad))
	bad = rec(21, "-bad", Ready, 0)
	assert.Error(t, f.q.Restore(bad))
}

func TestEnsureNextID(t *testing.T) {
	q := New(Config{Clock: NewManualClock(t0)})
	assert.Equal(t, uint64(1), q.NextID())
	q.EnsureNextID(50)
	assert.Equal(t, uint64(50), q.NextID())
	q.EnsureNextID(10) // never backwards
	assert.Equal(t, uint64(51), q.NextID())
}

func TestRewrite(t *testing.T) {
	f, jr := newJournalFixture(t)
	s, _ := f.session()
	id := f.putTTR(s, 4, 0, 2*time.Second)
	f.reserve(s)
	jr.take()
	seq, ok := f.q.Rewrite(id)
	require.True(t, ok)
	assert.Equal(t, uint64(2), seq)
	recs := jr.take()
	require.Len(t, recs, 1)
	want := Record{Kind: RecPut, ID: id, Tube: "default", State: Ready, Pri: 4, TTR: 2 * time.Second,
		Created: t0, Reserves: 1, Body: bodyOf(id)}
	assert.Equal(t, want, recs[0], "a reserved job is written as ready")

	jr.fail = errors.New("disk on fire")
	_, ok = f.q.Rewrite(id)
	assert.False(t, ok)
	jr.fail = nil
	_, err := s.Delete(id)
	require.NoError(t, err)
	_, ok = f.q.Rewrite(id)
	assert.False(t, ok, "gone")
}

// idJournal is a journal that hands out ids itself (IDSource).
type idJournal struct {
	fakeJournal
	next    uint64
	ensured uint64
}

func (j *idJournal) NextID() uint64           { j.next += 10; return j.next }
func (j *idJournal) EnsureNextID(next uint64) { j.ensured = max(j.ensured, next) }

func TestJournalThatIsAnIDSourceHandsOutTheIDs(t *testing.T) {
	j := &idJournal{}
	q := New(Config{Clock: NewManualClock(t0), Journal: j})
	assert.Equal(t, uint64(10), q.NextID())
	s := q.NewSession(func() {})
	id, _, err := s.Put(PutRequest{TTR: time.Second, Body: []byte("x")})
	require.NoError(t, err)
	assert.Equal(t, uint64(20), id, "a put without an id takes the journal's")
	q.EnsureNextID(500)
	assert.Equal(t, uint64(500), j.ensured)
}
