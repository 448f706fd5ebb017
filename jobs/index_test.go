package jobs

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIndexAgainstMap drives the open-addressed index and a Go map with the
// same random inserts and deletes (dense increasing ids, as the queue hands
// out, with random survivors) and checks that they always agree.
func TestIndexAgainstMap(t *testing.T) {
	var x index
	x.init()
	model := map[uint64]*job{}
	rng := rand.New(rand.NewPCG(1, 2))
	next := uint64(1)
	for step := range 200_000 {
		if rng.IntN(100) < 55 || len(model) == 0 {
			j := &job{id: next}
			next++
			x.put(j)
			model[j.id] = j
		} else {
			// delete a random live id near the front or anywhere
			id := next - 1 - uint64(rng.IntN(int(min(next-1, 5000))))
			if _, ok := model[id]; ok {
				x.del(id)
				delete(model, id)
			} else {
				x.del(id) // absent: a no-op
			}
		}
		if step%997 == 0 {
			for id, j := range model {
				require.Same(t, j, x.get(id), "id %d", id)
			}
			require.Equal(t, len(model), x.len())
		}
		require.Nil(t, x.get(next+7))
	}
	for id, j := range model {
		require.Same(t, j, x.get(id))
	}
}

// TestIndexShrinks checks that the tables grow with the jobs and are given
// back when the jobs are deleted.
func TestIndexShrinks(t *testing.T) {
	var x index
	x.init()
	const n = 100_000
	for id := uint64(1); id <= n; id++ {
		x.put(&job{id: id})
	}
	slots := func() (total int) {
		for i := range x.shards {
			total += len(x.shards[i].slots)
		}
		return total
	}
	assert.GreaterOrEqual(t, slots(), n*4/3)
	for id := uint64(1); id <= n-1000; id++ {
		x.del(id)
	}
	assert.LessOrEqual(t, slots(), 8*1000, "1000 jobs left keep small tables")
	for id := uint64(n - 999); id <= n; id++ {
		require.NotNil(t, x.get(id))
		x.del(id)
	}
	assert.LessOrEqual(t, slots(), indexShards*minIndexSlots, "an empty index keeps only its smallest tables")
}
