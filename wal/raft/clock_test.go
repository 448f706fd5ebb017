package raft

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/engine/enginetest"
	"github.com/stalkd/stalkd/jobs"
)

// skewed is the system clock stepped by off.
type skewed struct{ off time.Duration }

func (c skewed) Now() int64 { return time.Now().Add(c.off).UnixNano() }

func TestTermClockFor(t *testing.T) {
	local := jobs.NewManualClock(1_000_000_000_000)
	now := local.Now()
	c, off := termClockFor(local, now-int64(50*time.Millisecond), true)
	assert.Equal(t, jobs.Clock(local), c, "a little ahead of the evidence (replication lag): its own")
	assert.Zero(t, off)
	c, off = termClockFor(local, now-int64(time.Hour), true)
	assert.Equal(t, now-int64(time.Hour), c.Now(), "an hour ahead: the cluster's time")
	assert.Equal(t, time.Hour, off)
	c, _ = termClockFor(local, now+int64(time.Hour), true)
	assert.Equal(t, now+int64(time.Hour), c.Now(), "an hour behind: the cluster's time")
	local.Advance(time.Second)
	assert.Equal(t, now+int64(time.Hour+time.Second), c.Now(), "then it runs with the node's clock")
	c, _ = termClockFor(local, local.Now()-int64(time.Hour), false)
	assert.Equal(t, jobs.Clock(local), c, "no live evidence: its own clock")
	c, _ = termClockFor(local, local.Now()+int64(time.Hour), false)
	assert.Equal(t, local.Now()+int64(time.Hour), c.Now(), "never before the time the log holds")
}

func TestClusterTimeEvidence(t *testing.T) {
	var ct clusterTime
	base := time.Now()
	ct.observe(&jobs.Record{Kind: jobs.RecPut, Created: 500}, false, base)
	est, live := ct.estimate(base)
	assert.Equal(t, int64(500), est)
	assert.False(t, live, "replayed records say what time it was")
	ct.observe(&jobs.Record{Kind: jobs.RecUpdate, State: jobs.Reserved, Deadline: 10_000, TTR: 9000}, true, base)
	est, live = ct.estimate(base.Add(time.Second))
	assert.True(t, live)
	assert.Equal(t, int64(1000+time.Second), est, "evidence carried forward by the monotonic clock")
	ct.observe(&jobs.Record{Kind: jobs.RecUpdate, State: jobs.Delayed, Deadline: 3000, Delay: 2500}, true, base.Add(time.Second))
	est, _ = ct.estimate(base.Add(time.Second))
	assert.Equal(t, int64(1000+time.Second), est, "older evidence does not move it back")
}

// TestClusterTimeSurvivesASkewedLeader: a node whose wall clock is two
// hours ahead becomes the leader. The jobs the previous leaders delayed
// for an hour stay delayed, and a reservation with half an hour left
// stays reserved: timers follow the cluster's time, not the new leader's
// wall clock.
func TestClusterTimeSurvivesASkewedLeader(t *testing.T) {
	c := newClusterClocks(t, []jobs.Clock{nil, nil, skewed{2 * time.Hour}})
	li, q := c.leader()
	restart := li == 2
	if restart { // the skewed node must not lead first: it catches up later
		c.kill(2)
		li, q = c.leader()
	}
	s := q.NewSession(nil)
	_, seq, err := s.Put(jobs.PutRequest{Pri: 1, Delay: time.Hour, TTR: time.Minute, Owned: []byte("later")})
	require.NoError(t, err)
	require.NoError(t, waitCommitted(t, q, seq))
	id, seq, err := s.Put(jobs.PutRequest{Pri: 1, TTR: 30 * time.Minute, Owned: []byte("held")})
	require.NoError(t, err)
	require.NoError(t, waitCommitted(t, q, seq))
	d, err := s.Reserve(0)
	require.NoError(t, err)
	require.Equal(t, id, d.ID)
	require.NoError(t, waitCommitted(t, q, s.LastSeq()))
	if restart {
		c.start(2, nil)
	}
	// Let the skewed node apply all that live.
	enginetest.Eventually(t, "n2 applied the reservation", func() bool { return c.image(2)[id].State == jobs.Reserved })

	// Kill leaders until the skewed node leads.
	for try := 0; ; try++ {
		require.Less(t, try, 20, "n2 never led")
		c.kill(li)
		if li, q = c.leader(); li == 2 {
			break
		}
		c.start((li+1)%3, nil)
		c.start((li+2)%3, nil)
	}
	time.Sleep(200 * time.Millisecond) // the queue's timers run
	q.Tick()
	st := q.Stats()
	assert.Equal(t, int64(1), st.Delayed, "a job delayed for an hour came out early")
	assert.Equal(t, int64(1), st.Reserved, "a reservation with 30 minutes left ended early")
	assert.Zero(t, st.Ready)
}
