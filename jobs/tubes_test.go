package jobs

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func (f *fixture) tubes() []string { return f.q.ListTubes(nil) }

func TestTubesComeAndGo(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	assert.Equal(t, []string{"default"}, f.tubes())
	f.use(s, "t1")
	f.use(s, "t2")
	assert.Equal(t, []string{"default", "t2"}, f.tubes(), "t1 dropped the instant it was left")
	assert.Equal(t, "t2", s.Used())
	f.watch(s, "w")
	assert.Equal(t, []string{"default", "t2", "w"}, f.tubes())
	id := f.put(s, 0, 0)
	f.use(s, "default")
	assert.Equal(t, []string{"default", "t2", "w"}, f.tubes(), "a job keeps its tube")
	_, err := s.Delete(id)
	require.NoError(t, err)
	assert.Equal(t, []string{"default", "w"}, f.tubes())
	f.ignore(s, "default")
	_, err = s.Ignore([]byte("w")) // the only watched tube
	assert.ErrorIs(t, err, ErrNotIgnored)
	assert.Equal(t, []string{"default", "w"}, f.tubes(), "default is never dropped")
	assert.Equal(t, 2, f.q.Stats().Tubes)
}

// Removal moves the last tube into the hole: [default,t1,t2,t3] minus t1
// lists as default, t3, t2.
func TestTubeListSwapRemove(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	f.watch(s, "t1", "t2", "t3")
	f.ignore(s, "t1")
	assert.Equal(t, []string{"default", "t3", "t2"}, f.tubes())
	assert.Equal(t, []string{"default", "t3", "t2"}, s.Watched(nil))
}

// On close the watch list is emptied by removing item 0 again and again,
// and that order decides where the surviving tubes end up in the list.
func TestCloseEmptiesWatchListFromTheFront(t *testing.T) {
	f := newFixture(t)
	keep, _ := f.session()
	s, _ := f.session()
	for _, n := range []string{"a", "x", "b", "y", "c", "z"} {
		if strings.Contains("xyz", n) {
			f.watch(keep, n)
		} else {
			f.watch(s, n)
		}
	}
	require.Equal(t, []string{"default", "a", "x", "b", "y", "c", "z"}, f.tubes())
	// Watch list [default a b c]; removing item 0 each time drops default
	// (kept), then c, b, a. Front to back (a, b, c) would list default, z,
	// x, y instead.
	s.Close()
	assert.Equal(t, []string{"default", "y", "x", "z"}, f.tubes())
}

func TestWatchIgnoreReplies(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	n, err := s.Watch([]byte("a"))
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	n, err = s.Watch([]byte("a"))
	require.NoError(t, err)
	assert.Equal(t, 2, n, "watching twice is a no-op")
	n, err = s.Ignore([]byte("nonexistent"))
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	n, err = s.Ignore([]byte("a"))
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	_, err = s.Ignore([]byte("default"))
	assert.ErrorIs(t, err, ErrNotIgnored)
	assert.Equal(t, []string{"default"}, s.Watched(nil))
	for _, bad := range []string{"", "-x", "a b", "a\x00", strings.Repeat("n", MaxTubeName+1)} {
		_, err = s.Watch([]byte(bad))
		assert.ErrorIs(t, err, ErrBadTubeName, "%q", bad)
		assert.ErrorIs(t, s.Use([]byte(bad)), ErrBadTubeName, "%q", bad)
		_, err = s.Ignore([]byte(bad))
		assert.ErrorIs(t, err, ErrBadTubeName, "%q", bad)
	}
	assert.NoError(t, s.Use([]byte(strings.Repeat("n", MaxTubeName))))
	assert.NoError(t, s.Use([]byte("a-Z0+/;.$_()")))
}

func TestStatsTube(t *testing.T) {
	f := newFixture(t)
	p, _ := f.session()
	f.use(p, "t")
	urgent := f.put(p, UrgentPri-1, 0)
	f.put(p, UrgentPri, 0)
	f.put(p, 0, time.Minute)
	bur := f.put(p, 5, 0)
	del := f.put(p, 5, 0)
	res := f.put(p, 6, 0)
	w, _ := f.session()
	f.watch(w, "t")
	f.ignore(w, "default")
	require.Equal(t, []uint64{bur, del, res}, f.reserveIDs(w, 3))
	_, err := w.Bury(bur, 5)
	require.NoError(t, err)
	_, err = w.Delete(del)
	require.NoError(t, err)
	waiter, _ := f.session()
	f.watch(waiter, "t")
	f.use(waiter, "t")
	require.NoError(t, f.q.PauseTube([]byte("t"), 10*time.Second))
	assert.Equal(t, urgent, f.found(waiter.PeekReady()))
	f.waitFor(waiter, -1)
	f.advance(3 * time.Second)

	ts := f.tubeStats("t")
	assert.Equal(t, TubeStats{
		Name: "t", Urgent: 1, Ready: 2, Reserved: 1, Delayed: 1, Buried: 1, TotalJobs: 6,
		Using: 2, Watching: 2, Waiting: 1, Deletes: 1, Pauses: 1,
		Pause: 10 * time.Second, PauseLeft: 7 * time.Second,
	}, ts)
	_, err = f.q.StatsTube([]byte("nope"))
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = f.q.StatsTube([]byte("-"))
	assert.ErrorIs(t, err, ErrBadTubeName)
	assert.ErrorIs(t, f.q.PauseTube([]byte("nope"), time.Second), ErrNotFound)
}

func TestDroppedTubeLosesItsPause(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	f.use(s, "p")
	require.NoError(t, f.q.PauseTube([]byte("p"), time.Hour))
	f.use(s, "default")
	assert.Equal(t, []string{"default"}, f.tubes())
	f.use(s, "p")
	f.watch(s, "p")
	ts := f.tubeStats("p")
	assert.Zero(t, ts.Pause)
	assert.Zero(t, ts.Pauses)
	id := f.put(s, 0, 0)
	assert.Equal(t, id, f.reserve(s), "not paused any more")
	require.NoError(t, f.q.PauseTube([]byte("p"), 3*time.Hour))
	f.advance(2 * time.Hour) // the old pause's time: it must not end the new one
	assert.Equal(t, time.Hour, f.tubeStats("p").PauseLeft)
}

// The registry gives back its table once most tubes are gone.
func TestRegistryShrinks(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	const n = 5000
	for i := range n {
		_, err := s.Watch([]byte(fmt.Sprintf("w%d", i)))
		require.NoError(t, err)
	}
	assert.Equal(t, n+1, f.q.tubes.count())
	for i := range n {
		_, err := s.Ignore([]byte(fmt.Sprintf("w%d", i)))
		require.NoError(t, err)
	}
	f.q.tubes.mu.RLock()
	defer f.q.tubes.mu.RUnlock()
	assert.Equal(t, 1, len(f.q.tubes.byName))
	assert.Less(t, cap(f.q.tubes.list), minRegistryShrink, "the list was rebuilt small")
	assert.Less(t, f.q.tubes.peak, minRegistryShrink, "the map was rebuilt")
	for name, tb := range f.q.tubes.byName {
		assert.Equal(t, name, tb.name)
		assert.Same(t, tb, f.q.tubes.list[tb.listIdx])
	}
}
