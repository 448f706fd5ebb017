package jobs

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A put + reserve + delete cycle allocates nothing (the body is the caller's, the
// job and its extension are recycled): the index,
// the heaps, the timing wheel, the counters and the session's lists reuse
// what earlier cycles grew.
func TestSteadyStateAllocations(t *testing.T) {
	if raceEnabledInternal {
		t.Skip("the race detector allocates")
	}
	f := newFixture(t)
	p, _ := f.session()
	c, _ := f.session()
	payload := body("a preallocated body of a modest size")
	cycle := func() {
		id, _, err := p.Put(PutRequest{Pri: 1, TTR: time.Minute, Owned: payload})
		if err != nil {
			panic(err)
		}
		d, err := c.Reserve(0)
		if err != nil || d.ID != id {
			panic("reserve")
		}
		if _, err = c.Delete(id); err != nil {
			panic(err)
		}
	}
	for range 10_000 { // grow every map and slice to its steady size
		cycle()
	}
	allocs := testing.AllocsPerRun(10_000, cycle)
	t.Logf("allocations per put+reserve+delete: %.3f (AllocsPerRun %.0f)", exactAllocs(cycle), allocs)
	assert.Equal(t, 0.0, allocs)

	// The same with a waiting worker: the job is handed over, not queued.
	handOff := func() {
		if _, err := c.Reserve(-1); err != ErrWaiting {
			panic("no wait")
		}
		id, _, err := p.Put(PutRequest{Pri: 1, TTR: time.Minute, Owned: payload})
		if err != nil {
			panic(err)
		}
		d, err := c.TakeOutcome()
		if err != nil || d.ID != id {
			panic("take")
		}
		if _, err = c.Delete(id); err != nil {
			panic(err)
		}
	}
	for range 10_000 {
		handOff()
	}
	allocs = testing.AllocsPerRun(10_000, handOff)
	t.Logf("allocations per wait+put+take+delete: %.3f (AllocsPerRun %.0f)", exactAllocs(handOff), allocs)
	assert.Equal(t, 0.0, allocs)
	require.Zero(t, f.q.Stats().Ready)
}

// exactAllocs is the mean number of allocations of f over many runs, as a
// fraction (AllocsPerRun rounds down).
func exactAllocs(f func()) float64 {
	const runs = 20_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / runs
}

// A tube with a policy runs its rules through the per-tube hook (hook.go)
// on every put and requeue; the calls the rules see are recycled, so a put
// + reserve + release + reserve + delete cycle there allocates nothing
// either (a regression here was a putCall and its wakeups escaping on
// every put, policy or not).
func TestSteadyStateAllocationsWithPolicy(t *testing.T) {
	if raceEnabledInternal {
		t.Skip("the race detector allocates")
	}
	f := newFixture(t)
	require.NoError(t, f.q.SetPolicy("default", Policy{MaxReady: 1 << 20, MaxReserves: 1 << 30}))
	p, _ := f.session()
	c, _ := f.session()
	payload := body("a preallocated body of a modest size")
	cycle := func() {
		id, _, err := p.Put(PutRequest{Pri: 1, TTR: time.Minute, Owned: payload})
		if err != nil {
			panic(err)
		}
		d, err := c.Reserve(0)
		if err != nil || d.ID != id {
			panic("reserve")
		}
		if _, err = c.Release(id, 1, 0); err != nil {
			panic(err)
		}
		if d, err = c.Reserve(0); err != nil || d.ID != id {
			panic("reserve again")
		}
		if _, err = c.Delete(id); err != nil {
			panic(err)
		}
	}
	for range 10_000 {
		cycle()
	}
	assert.Equal(t, 0.0, testing.AllocsPerRun(10_000, cycle))
}
