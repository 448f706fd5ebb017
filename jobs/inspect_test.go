package jobs

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func inspectByName(q *Queue, opt InspectOptions) map[string]TubeInfo {
	m := map[string]TubeInfo{}
	for _, ti := range q.Inspect(nil, opt) {
		m[ti.Name] = ti
	}
	return m
}

// TestInspect checks every figure of Inspect against a scripted queue,
// including the oldest ready job's age as the clock moves.
func TestInspect(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	require.NoError(t, s.Use([]byte("a")))
	first := f.put(s, 5, 0)
	f.advance(3 * time.Second)
	f.put(s, 1, 0) // higher priority, younger: the heap top is not the oldest
	f.put(s, 2000, 0)
	f.put(s, 5, time.Minute)
	w, _ := f.session()
	_, err := w.Watch([]byte("a"))
	require.NoError(t, err)
	_, err = w.Ignore([]byte("default"))
	require.NoError(t, err)
	id := f.reserve(w) // the pri-1 job
	_, err = w.Bury(id, 1)
	require.NoError(t, err)
	require.NoError(t, f.q.PauseTube([]byte("a"), 10*time.Second))
	f.advance(2 * time.Second)

	got := inspectByName(f.q, InspectOptions{Oldest: true})
	require.Contains(t, got, "default")
	a := got["a"]
	assert.Equal(t, int64(2), a.Ready)
	assert.Equal(t, int64(1), a.Urgent)
	assert.Equal(t, int64(1), a.Delayed)
	assert.Equal(t, int64(1), a.Buried)
	assert.Equal(t, int64(0), a.Reserved)
	assert.Equal(t, int64(4), a.Total())
	assert.Equal(t, uint64(4), a.TotalJobs)
	assert.True(t, a.Paused)
	assert.Equal(t, 8*time.Second, a.PauseLeft)
	assert.Equal(t, 5*time.Second, a.OldestReady, "job %d was put 5s ago", first)
	assert.Equal(t, time.Duration(0), got["default"].OldestReady)

	noScan := inspectByName(f.q, InspectOptions{})
	assert.Equal(t, time.Duration(0), noScan["a"].OldestReady)
	filtered := inspectByName(f.q, InspectOptions{Oldest: true, OnlyOldest: func(n string) bool { return n != "a" }})
	assert.Equal(t, time.Duration(0), filtered["a"].OldestReady)

	f.advance(10 * time.Second)
	one, err := f.q.InspectTube([]byte("a"))
	require.NoError(t, err)
	assert.False(t, one.Paused)
	assert.Equal(t, 15*time.Second, one.OldestReady)

	_, err = f.q.InspectTube([]byte("nope"))
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = f.q.InspectTube([]byte("-bad"))
	assert.ErrorIs(t, err, ErrBadTubeName)
}

// TestInspectOldestAcrossChunks checks the chunked scan finds the oldest job
// wherever it sits in a heap larger than one chunk.
func TestInspectOldestAcrossChunks(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	old := f.put(s, 1<<31, 0) // lowest priority: at the bottom of the heap
	f.advance(time.Second)
	for i := range 2*oldestScanChunk + 7 {
		f.put(s, uint32(i%100), 0)
	}
	ti, err := f.q.InspectTube([]byte("default"))
	require.NoError(t, err)
	assert.Equal(t, time.Second, ti.OldestReady, fmt.Sprint("job ", old))
}

func TestJournalErr(t *testing.T) {
	assert.NoError(t, newFixture(t).q.JournalErr())
	f, j := newJournalFixture(t)
	assert.NoError(t, f.q.JournalErr())
	boom := errors.New("disk on fire")
	j.mu.Lock()
	j.err = boom
	j.mu.Unlock()
	assert.ErrorIs(t, f.q.JournalErr(), boom)
	assert.Equal(t, f.clock.Now(), f.q.Now())
}

// TestInspectConcurrent runs Inspect while tubes come and go and jobs
// move (for the race detector); every tube reported has a valid name and
// non-negative figures.
func TestInspectConcurrent(t *testing.T) {
	q := New(Config{Clock: NewManualClock(t0)})
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := q.NewSession(nil)
		defer s.Close()
		for i := range 2000 {
			name := fmt.Appendf(nil, "t%d", i%17)
			if err := s.Use(name); err != nil {
				panic(err)
			}
			id, _, err := s.Put(PutRequest{TTR: time.Second, Body: []byte("x")})
			if err != nil {
				panic(err)
			}
			if i%2 == 0 {
				if _, err := s.Delete(id); err != nil {
					panic(err)
				}
			}
			if err := s.Use([]byte("default")); err != nil {
				panic(err)
			}
		}
	}()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		for _, ti := range q.Inspect(nil, InspectOptions{Oldest: true}) {
			require.True(t, validName([]byte(ti.Name)))
			require.GreaterOrEqual(t, ti.Ready, int64(0))
			require.GreaterOrEqual(t, ti.OldestReady, time.Duration(0))
		}
	}
	total := int64(0)
	for _, ti := range q.Inspect(nil, InspectOptions{}) {
		total += ti.Total()
	}
	assert.Equal(t, int64(1000), total)
}
