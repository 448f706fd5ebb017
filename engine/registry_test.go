package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The registry's list of connections stays exact through removals in any
// order (each removal moves the last connection into the hole), removing
// twice is harmless, and a burst's capacity is given back.
func TestRegistryListsOpenConnections(t *testing.T) {
	var r registry
	r.init()
	cs := make([]*conn, 3000)
	for i := range cs {
		cs[i] = &conn{}
		require.Equal(t, i+1, r.add(cs[i]))
	}
	check := func() {
		t.Helper()
		for i, cn := range r.all {
			require.Equal(t, int32(i+1), cn.regSlot)
		}
	}
	check()
	for i := 0; i < len(cs); i += 3 { // every third: the hole is mid-list
		r.remove(cs[i])
		r.remove(cs[i]) // again: nothing happens
	}
	check()
	assert.Equal(t, 2000, r.count())
	for i := len(cs) - 1; i >= 0; i-- {
		r.remove(cs[i])
	}
	check()
	assert.Zero(t, r.count())
	assert.LessOrEqual(t, cap(r.all), 2*minAllShrink)
}
