package jobs

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server holds a Session per connection, most of them idle (issue 12's
// memory per idle connection): a fresh session is one allocation of at most
// 128 bytes. What only a waiting reserve needs comes with the first wait,
// and the watch list is the queue's shared "default" list until it changes.
func TestSessionSize(t *testing.T) {
	assert.LessOrEqual(t, reflect.TypeFor[Session]().Size(), uintptr(128))
	if raceEnabledInternal {
		t.Skip("the race detector allocates")
	}
	q := New(Config{Clock: NewManualClock(t0)})
	allocs := testing.AllocsPerRun(1000, func() {
		q.NewSession(nil).Close()
	})
	assert.Equal(t, 1.0, allocs, "allocations per NewSession + Close")
}

// The shared default watch list is copied on write: one session changing
// or closing its list leaves the others' (and later sessions') alone.
func TestSessionsShareDefaultWatchList(t *testing.T) {
	f := newFixture(t)
	a, _ := f.session()
	b, _ := f.session()
	require.Nil(t, a.w, "a session that never waited has no wait state")
	f.watch(a, "x")
	_, err := a.Ignore([]byte("default"))
	require.NoError(t, err)
	assert.Equal(t, []string{"x"}, a.Watched(nil))
	assert.Equal(t, []string{"default"}, b.Watched(nil))
	b.Close()
	c, _ := f.session()
	assert.Equal(t, []string{"default"}, c.Watched(nil))
	f.watch(c, "y")
	f.watch(c, "z")
	_, err = c.Ignore([]byte("y"))
	require.NoError(t, err)
	assert.Equal(t, []string{"default", "z"}, c.Watched(nil))
	d, _ := f.session()
	assert.Equal(t, []string{"default"}, d.Watched(nil))
	assert.Same(t, f.q.defTube, f.q.defWatch[0])

	// A waiting session of the shared list is served from "default".
	_, err = d.Reserve(time.Minute)
	require.ErrorIs(t, err, ErrWaiting)
	require.NotNil(t, d.w)
	id := f.put(a, 1, 0) // a uses "default"
	got, err := d.TakeOutcome()
	require.NoError(t, err)
	assert.Equal(t, id, got.ID)
	a.Close()
	c.Close()
	d.Close()
	assert.Same(t, f.q.defTube, f.q.defWatch[0])
}
