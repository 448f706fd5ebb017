package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTTRZeroIsOneSecond(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	id := f.putTTR(s, 0, 0, 0)
	assert.Equal(t, time.Second, f.jobStats(id).TTR)
	f.reserve(s)
	assert.Equal(t, time.Second, f.jobStats(id).TimeLeft)
}

// A TTR ends when now > deadline: at the deadline the job is still reserved.
func TestTTRExpiryIsStrict(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	id := f.putTTR(s, 0, 0, 3*time.Second)
	f.reserve(s)
	f.advance(3 * time.Second)
	js := f.jobStats(id)
	assert.Equal(t, Reserved, js.State, "exactly at the deadline")
	assert.Equal(t, time.Duration(0), js.TimeLeft)
	assert.Zero(t, f.q.Stats().JobTimeouts)

	f.advance(1)
	js = f.jobStats(id)
	assert.Equal(t, Ready, js.State)
	assert.Equal(t, uint32(1), js.Timeouts)
	assert.Equal(t, uint32(1), js.Reserves)
	st := f.q.Stats()
	assert.Equal(t, uint64(1), st.JobTimeouts)
	assert.Equal(t, int64(1), st.Ready)
	assert.Zero(t, st.Reserved)
}

// A job whose TTR ran out goes back to ready, never to delayed, even if it
// was put or released with a delay.
func TestTTRExpiredJobGoesToReady(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	id := f.putTTR(s, 0, time.Second, time.Second)
	f.advance(time.Second)
	f.reserve(s)
	_, err := s.Release(id, 0, time.Second)
	require.NoError(t, err)
	f.advance(time.Second)
	f.reserve(s)
	f.advance(time.Second + 1)
	js := f.jobStats(id)
	assert.Equal(t, Ready, js.State)
	assert.Equal(t, time.Second, js.Delay)
}

func TestDeadlineSoonOnReserve(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(f *fixture, s *Session) // s holds a job in its last second
		timeout time.Duration
		want    error // nil: a job
	}{
		{"no ready job", nil, -1, ErrDeadlineSoon},
		{"no ready job, timeout 0", nil, 0, ErrDeadlineSoon},
		{"a ready job wins", func(f *fixture, s *Session) { f.put(s, 0, 0) }, -1, nil},
		{"ready job in another watched tube", func(f *fixture, s *Session) {
			f.use(s, "other")
			f.put(s, 0, 0)
			f.watch(s, "other")
		}, 0, nil},
		{"only ready job in a paused tube", func(f *fixture, s *Session) {
			f.use(s, "other")
			f.put(s, 0, 0)
			f.watch(s, "other")
			require.NoError(f.t, f.q.PauseTube([]byte("other"), time.Minute))
		}, 0, ErrDeadlineSoon},
		{"ready job in an unwatched tube", func(f *fixture, s *Session) {
			f.use(s, "other")
			f.put(s, 0, 0)
		}, 0, ErrDeadlineSoon},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			s, _ := f.session()
			f.putTTR(s, 0, 0, 3*time.Second)
			f.reserve(s)
			f.advance(2 * time.Second) // deadline - 1 s: the margin starts here
			if tc.setup != nil {
				tc.setup(f, s)
			}
			d, err := s.Reserve(tc.timeout)
			if tc.want != nil {
				assert.ErrorIs(t, err, tc.want)
				assert.False(t, s.Waiting())
				return
			}
			require.NoError(t, err)
			assert.NotZero(t, d.ID)
		})
	}
}

func TestNoDeadlineSoonBeforeTheMargin(t *testing.T) {
	f := newFixture(t)
	s, _ := f.session()
	f.putTTR(s, 0, 0, 3*time.Second)
	f.reserve(s)
	f.advance(2*time.Second - 1)
	_, err := s.Reserve(0)
	assert.ErrorIs(t, err, ErrTimedOut)
}

// A session waiting in reserve while it holds a job is woken with
// DEADLINE_SOON exactly when the job enters its last second.
func TestDeadlineSoonWakesAWaiter(t *testing.T) {
	f := newFixture(t)
	s, w := f.session()
	id := f.putTTR(s, 0, 0, 5*time.Second)
	f.reserve(s)
	f.waitFor(s, -1)
	f.advance(4*time.Second - 1)
	assert.Zero(t, w.n)
	assert.True(t, s.Waiting())
	f.advance(1)
	assert.Equal(t, 1, w.n)
	_, err := f.outcome(s)
	assert.ErrorIs(t, err, ErrDeadlineSoon)
	assert.False(t, s.Waiting())
	assert.Equal(t, Reserved, f.state(id))
	assert.Zero(t, f.q.Stats().Waiting)
	assert.Zero(t, f.tubeStats("default").Waiting)
}

// The wait's own timeout wins when it comes before the margin.
func TestReserveTimeoutBeforeDeadlineSoon(t *testing.T) {
	f := newFixture(t)
	s, w := f.session()
	f.putTTR(s, 0, 0, 10*time.Second)
	f.reserve(s)
	f.waitFor(s, 2*time.Second)
	f.advance(2*time.Second - 1)
	assert.Zero(t, w.n)
	f.advance(1)
	require.Equal(t, 1, w.n)
	_, err := f.outcome(s)
	assert.ErrorIs(t, err, ErrTimedOut)
}

func TestReserveTimeouts(t *testing.T) {
	for _, timeout := range []time.Duration{time.Nanosecond, time.Millisecond, time.Second, 90 * time.Second} {
		f := newFixture(t)
		s, w := f.session()
		f.waitFor(s, timeout)
		assert.Equal(t, int64(1), f.q.Stats().Waiting)
		f.advance(timeout - 1)
		assert.Zero(t, w.n, "timeout %v fired early", timeout)
		f.advance(1)
		assert.Equal(t, 1, w.n, "timeout %v", timeout)
		_, err := f.outcome(s)
		assert.ErrorIs(t, err, ErrTimedOut)
		assert.Zero(t, f.q.Stats().Waiting)
		f.advance(time.Hour)
		assert.Equal(t, 1, w.n, "woken once only")
	}
}

func TestReserveTimeoutZero(t *testing.T) {
	f := newFixture(t)
	s, w := f.session()
	_, err := s.Reserve(0)
	assert.ErrorIs(t, err, ErrTimedOut)
	assert.False(t, s.Waiting())
	assert.Zero(t, w.n)
	assert.Equal(t, int64(1), f.q.Stats().Workers)
}

// Closing a session returns its reserved jobs to ready: no timeout is
// counted and the reserve count stays as it was.
func TestCloseReleasesReservedJobs(t *testing.T) {
	f := newFixture(t)
	p, _ := f.session()
	a, b := f.put(p, 0, 0), f.put(p, 0, 0)
	c, _ := f.session()
	f.reserveIDs(c, 2)
	f.waitFor(c, 5*time.Second)
	c.Close()
	for _, id := range []uint64{a, b} {
		js := f.jobStats(id)
		assert.Equal(t, Ready, js.State)
		assert.Zero(t, js.Timeouts)
		assert.Equal(t, uint32(1), js.Reserves)
	}
	st := f.q.Stats()
	assert.Zero(t, st.JobTimeouts)
	assert.Zero(t, st.Waiting)
	assert.Zero(t, f.tubeStats("default").Waiting)
	f.advance(time.Minute) // the cancelled wait's timer fires nothing
	assert.Equal(t, int64(2), f.q.Stats().Ready)
}

// A tick that comes late - after both the DEADLINE_SOON margin and the TTR
// of a job held by a waiting session - answers what a timely tick would
// have: DEADLINE_SOON. A reserve without a timeout never times out.
func TestLateTickStillAnswersDeadlineSoon(t *testing.T) {
	for _, timeout := range []time.Duration{-1, time.Hour} {
		f := newFixture(t)
		s, w := f.session()
		f.use(s, "x")
		f.watch(s, "x")
		id := f.putTTR(s, 0, 0, 2*time.Second)
		f.reserve(s)
		f.ignore(s, "x") // the expired job must not simply come back to s
		f.waitFor(s, timeout)
		f.advance(5 * time.Second)
		require.Equal(t, 1, w.n)
		_, err := f.outcome(s)
		assert.ErrorIs(t, err, ErrDeadlineSoon, "timeout %v", timeout)
		assert.Equal(t, Ready, f.state(id))
	}
}
