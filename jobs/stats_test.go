package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStats(t *testing.T) {
	f := newFixture(t)
	idle, _ := f.session()
	prod, _ := f.session()
	work, _ := f.session()
	f.put(prod, 1, 0)                 // urgent, reserved below
	f.put(prod, UrgentPri-1, 0)       // urgent, stays ready
	f.put(prod, UrgentPri, 0)         // ready
	f.put(prod, 0, time.Second)       // delayed
	f.put(prod, 0, 0)                 // buried below
	reserved := f.reserveIDs(work, 2) // ids 5 (pri 0) and 1 (pri 1)
	_, err := work.Bury(reserved[0], 0)
	require.NoError(t, err)
	f.use(idle, "x")
	f.watch(work, "y")
	waiter, _ := f.session()
	f.watch(waiter, "x")
	f.ignore(waiter, "default")
	f.waitFor(waiter, -1)
	prod.Count(0)
	work.Count(0)
	work.Count(MaxCommands - 1)

	st := f.q.Stats()
	want := Stats{
		Urgent: 1, Ready: 2, Reserved: 1, Delayed: 1, Buried: 1,
		TotalJobs: 5, Tubes: 3,
		Connections: 4, Producers: 1, Workers: 2, Waiting: 1, TotalConnections: 4,
	}
	want.Cmds[0] = 2
	want.Cmds[MaxCommands-1] = 1
	assert.Equal(t, want, st)

	f.advance(10*time.Second + 1) // the delayed job is ready, the reserved one times out
	prod.Close()
	waiter.Close()
	f.q.SetDraining(true)
	st = f.q.Stats()
	assert.Equal(t, uint64(1), st.JobTimeouts)
	assert.Equal(t, int64(4), st.Ready)
	assert.Equal(t, int64(3), st.Urgent)
	assert.Zero(t, st.Reserved+st.Delayed+st.Waiting)
	assert.Equal(t, int64(2), st.Connections)
	assert.Zero(t, st.Producers)
	assert.Equal(t, int64(1), st.Workers)
	assert.Equal(t, uint64(4), st.TotalConnections)
	assert.True(t, st.Draining)
	assert.Equal(t, 3, st.Tubes, "x is still used, y still watched")
}

func TestJobStats(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	f.use(s, "jt")
	f.watch(s, "jt")
	id := f.putTTR(s, 7, 2*time.Second, 3*time.Second)
	want := JobStats{ID: id, Tube: "jt", State: Delayed, Pri: 7, Delay: 2 * time.Second,
		TTR: 3 * time.Second, TimeLeft: 2 * time.Second}
	assert.Equal(t, want, f.jobStats(id))

	f.advance(2 * time.Second)
	require.Equal(t, id, f.reserve(s))
	f.advance(3*time.Second + 1) // timeout
	require.Equal(t, id, f.reserve(s))
	f.clock.Advance(3500 * time.Millisecond) // past the deadline, not yet ticked
	js := f.jobStats(id)
	assert.Equal(t, -500*time.Millisecond, js.TimeLeft, "time-left may be negative until the tick")
	f.q.Tick()
	require.Equal(t, id, f.reserve(s))
	_, err := s.Release(id, 8, time.Second)
	require.NoError(t, err)
	f.advance(time.Second)
	require.Equal(t, id, f.reserve(s))
	_, err = s.Bury(id, 9)
	require.NoError(t, err)
	_, err = s.KickJob(id)
	require.NoError(t, err)
	want = JobStats{ID: id, Tube: "jt", State: Ready, Pri: 9, Age: 9500*time.Millisecond + 1, Delay: time.Second,
		TTR: 3 * time.Second, Reserves: 4, Timeouts: 2, Releases: 1, Buries: 1, Kicks: 1}
	assert.Equal(t, want, f.jobStats(id))
	_, err = f.q.StatsJob(id + 1)
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestStateString(t *testing.T) {
	for st, want := range map[State]string{Ready: "ready", Reserved: "reserved", Delayed: "delayed", Buried: "buried", 0: "invalid"} {
		assert.Equal(t, want, st.String())
	}
}
