package wal

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLocTableMatchesAMap drives the table and a map with the same random
// sets and deletes (ids mostly increasing, some far behind, some revisited)
// and checks every lookup, the count, and that the window stays bounded by
// the live ids it holds.
func TestLocTableMatchesAMap(t *testing.T) {
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var tab locTable
		model := map[uint64]loc{}
		next := uint64(1) + rng.Uint64N(1<<40)
		for step := range 60_000 {
			switch op := rng.IntN(10); {
			case op < 5: // a new id, now and then after a gap
				if rng.IntN(100) == 0 {
					next += rng.Uint64N(1 << 20)
				}
				lc := loc{index: uint64(step) + 1, size: 1 + rng.Uint32N(100)}
				tab.set(next, lc)
				model[next] = lc
				next++
				require.LessOrEqual(t, len(tab.slots), 2*tab.len()+minWindow+1, "window grew past its bound")
			case op < 6: // rewrite a live id (compaction moves it forward)
				for id := range model {
					lc := loc{index: uint64(step) + 1, size: 7}
					tab.set(id, lc)
					model[id] = lc
					break
				}
			default: // delete: usually a young id, sometimes any
				id := next - 1 - rng.Uint64N(64)
				if rng.IntN(4) == 0 {
					for k := range model {
						id = k
						break
					}
				}
				got, ok := tab.del(id)
				want, wok := model[id]
				require.Equal(t, wok, ok, "del %d", id)
				require.Equal(t, want, got)
				delete(model, id)
			}
			if step%4999 == 0 {
				for id, want := range model {
					got, ok := tab.get(id)
					require.True(t, ok, "id %d lost", id)
					require.Equal(t, want, got)
				}
				_, ok := tab.get(next + 5)
				require.False(t, ok)
			}
			require.Equal(t, len(model), tab.len())
		}
	}
}

// TestLocTableGivesADrainedWindowBack checks that deleting every job drops
// the window's array, and that a stale id far behind costs a map entry, not
// a window reaching back to it.
func TestLocTableGivesADrainedWindowBack(t *testing.T) {
	var tab locTable
	for id := uint64(1); id <= 100_000; id++ {
		tab.set(id, loc{index: id, size: 10})
	}
	require.GreaterOrEqual(t, cap(tab.slots), 100_000)
	for id := uint64(2); id <= 100_000; id++ {
		_, ok := tab.del(id)
		require.True(t, ok)
	}
	require.Equal(t, 1, tab.len())
	tab.set(10_000_000, loc{index: 1, size: 10}) // job 1 is now far behind
	require.Less(t, cap(tab.slots), 100_000, "the window kept the drained array")
	require.Len(t, tab.far, 1)
	lc, ok := tab.get(1)
	require.True(t, ok)
	require.Equal(t, uint32(10), lc.size)
	_, ok = tab.del(10_000_000)
	require.True(t, ok)
	require.Nil(t, tab.slots)
	require.Equal(t, 1, tab.len())
}
