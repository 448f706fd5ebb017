package wal

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJobLocsMatchesAMap drives the table and a map with the same random
// sets and deletes (ids mostly increasing, some far behind, some revisited;
// indexes growing, now and then by more than 32 bits can say, with the
// floor following) and checks every lookup, the count, each's coverage,
// and that the window stays bounded by the live ids it holds.
func TestJobLocsMatchesAMap(t *testing.T) {
	type want struct {
		index uint64
		size  uint32
	}
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 9))
		tab := jobLocs{idxBase: 1, floor: 1}
		model := map[uint64]want{}
		next := uint64(1) + rng.Uint64N(1<<40)
		index := uint64(1)
		for step := range 60_000 {
			index += 1 + rng.Uint64N(4)
			if rng.IntN(20_000) == 0 { // billions of entries later: the log was compacted meanwhile
				index += 1 << 32
				tab.floor = index - uint64(rng.IntN(2))<<33 // usually the live records fit; sometimes not
				for id, w := range model {                  // compaction moved every live job forward
					w.index = index
					model[id] = w
					tab.set(id, index, w.size)
				}
			}
			switch op := rng.IntN(10); {
			case op < 5: // a new id, now and then after a gap
				if rng.IntN(100) == 0 {
					next += rng.Uint64N(1 << 20)
				}
				w := want{index: index, size: 1 + rng.Uint32N(100)}
				assert.Zero(t, tab.set(next, w.index, w.size))
				model[next] = w
				next++
				require.LessOrEqual(t, tab.allocated()*locChunk, 2*tab.len()+minLocWindow+2*locChunk, "window grew past its bound")
			case op < 6: // rewrite a live id (compaction moves it forward)
				for id, old := range model {
					w := want{index: index, size: 7}
					require.Equal(t, old.size, tab.set(id, w.index, w.size))
					model[id] = w
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
				size, ok := tab.del(id)
				w, wok := model[id]
				require.Equal(t, wok, ok, "del %d", id)
				require.Equal(t, w.size, size)
				delete(model, id)
			}
			if step%4999 == 0 {
				for id, w := range model {
					idx, size, ok := tab.get(id)
					require.True(t, ok, "id %d lost", id)
					require.Equal(t, w, want{idx, size})
				}
				_, _, ok := tab.get(next + 5)
				require.False(t, ok)
				seen := map[uint64]want{}
				tab.each(0, tab.end(), true, func(id, idx uint64, size uint32) {
					_, dup := seen[id]
					require.False(t, dup, "id %d seen twice", id)
					seen[id] = want{idx, size}
				})
				require.Equal(t, model, seen)
			}
			require.Equal(t, len(model), tab.len())
		}
	}
}

// TestJobLocsGivesADrainedWindowBack checks that deleting every job drops
// the chunks, and that a stale id far behind costs a map entry, not a
// window reaching back to it.
func TestJobLocsGivesADrainedWindowBack(t *testing.T) {
	var tab jobLocs
	for id := uint64(1); id <= 100_000; id++ {
		tab.set(id, id, 10)
	}
	require.GreaterOrEqual(t, len(tab.chunks)*locChunk, 100_000)
	for id := uint64(2); id <= 100_000; id++ {
		_, ok := tab.del(id)
		require.True(t, ok)
	}
	require.Equal(t, 1, tab.len())
	assert.Equal(t, 1, len(tab.chunks), "emptied chunks are dropped")
	tab.set(10_000_000, 1, 10) // job 1 is now far behind
	assert.Equal(t, 1, len(tab.chunks), "the window does not reach back to job 1")
	require.Len(t, tab.far, 1)
	_, size, ok := tab.get(1)
	require.True(t, ok)
	require.Equal(t, uint32(10), size)
	_, ok = tab.del(10_000_000)
	require.True(t, ok)
	require.Equal(t, 0, len(tab.chunks))
	require.Equal(t, 1, tab.len())
}

// allocated is the number of chunks holding memory.
func (t *jobLocs) allocated() int {
	n := 0
	for _, c := range t.chunks {
		if c != nil {
			n++
		}
	}
	return n
}
