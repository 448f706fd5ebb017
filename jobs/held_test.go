package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// HeldBytes follows the jobs in and out, whichever way they leave: delete
// in every state, clear-tube, and restore.
func TestHeldBytes(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	require.Zero(t, f.q.HeldBytes())
	var ids []uint64
	for i := range 40 {
		ids = append(ids, f.put(s, uint32(i), time.Duration(i%2)*time.Second))
	}
	per := int64(len(bodyOf(ids[0]))) + jobOverhead
	assert.GreaterOrEqual(t, f.q.HeldBytes(), 40*per)

	// Reserve one, bury one, then delete those and a ready and a delayed one.
	d, err := s.Reserve(0)
	require.NoError(t, err)
	d2, err := s.Reserve(0)
	require.NoError(t, err)
	_, err = s.Bury(d2.ID, 1)
	require.NoError(t, err)
	for _, id := range []uint64{d.ID, d2.ID, ids[5], ids[7]} {
		_, err = s.Delete(id)
		require.NoError(t, err)
	}
	_, _, err = f.q.ClearTube([]byte("default"))
	require.NoError(t, err)
	assert.Zero(t, f.q.HeldBytes(), "every job gone")

	require.NoError(t, f.q.Restore(Record{Kind: RecPut, ID: 1000, Tube: "x", State: Ready, Body: []byte("ab")}))
	assert.Equal(t, 2+int64(jobOverhead), f.q.HeldBytes())
}

// Restoring an id twice fails and leaves nothing behind (not even the
// second record's tube).
func TestRestoreDuplicate(t *testing.T) {
	f := newFixture(t)
	rec := Record{Kind: RecPut, ID: 5, Tube: "x", State: Ready, Body: []byte("a")}
	require.NoError(t, f.q.Restore(rec))
	rec.Tube = "y"
	require.Error(t, f.q.Restore(rec))
	assert.ElementsMatch(t, []string{"default", "x"}, f.q.ListTubes(nil))
	assert.Equal(t, int64(1), f.q.Stats().Ready)
	assert.Equal(t, 1+int64(jobOverhead), f.q.HeldBytes())
}
