package admin

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

func TestSelectTubes(t *testing.T) {
	clk := jobs.NewManualClock(t0)
	q := jobs.New(jobs.Config{Clock: clk})
	ss := q.NewSession(nil)
	defer ss.Close()
	for name, n := range map[string]int{"c": 2, "a": 2, "b": 2, "d": 1} {
		require.NoError(t, ss.Use([]byte(name)))
		for range n {
			_, _, err := ss.Put(jobs.PutRequest{TTR: time.Minute, Body: []byte("x")})
			require.NoError(t, err)
		}
	}
	require.NoError(t, ss.Use([]byte("default")))
	clk.Advance(time.Second)

	names := func(ts tubeSet) (n []string) {
		for _, t := range ts.tubes {
			n = append(n, t.Name)
		}
		return n
	}
	ts := selectTubes(q, 2)
	assert.Equal(t, []string{"a", "b"}, names(ts), "ties broken by name")
	assert.True(t, ts.truncated)
	assert.Equal(t, 5, ts.total)
	for _, ti := range ts.tubes {
		assert.Equal(t, time.Second, ti.OldestReady, ti.Name)
	}

	ts = selectTubes(q, -1)
	assert.Equal(t, []string{"a", "b", "c", "d", "default"}, names(ts))
	assert.False(t, ts.truncated)
	assert.Equal(t, time.Second, ts.tubes[3].OldestReady)

	ts = selectTubes(q, 5)
	assert.False(t, ts.truncated, "exactly at the cap")
	assert.Len(t, ts.tubes, 5)
}
