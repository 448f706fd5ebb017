package wal

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/stalkd/stalkd/jobs"
)

// server is a real *jobs.Queue journaled by a Log, restartable.
type server struct {
	t      *testing.T
	dir    string
	opts   Options
	clock  *jobs.ManualClock
	l      *Log
	q      *jobs.Queue
	commit chan struct{}
}

const t0 = int64(1_700_000_000_000_000_000)

func newServer(t *testing.T, opts Options) *server {
	s := &server{t: t, dir: testDir(t), opts: opts, clock: jobs.NewManualClock(t0)}
	s.start()
	t.Cleanup(func() {
		if s.l != nil {
			s.l.Close()
		}
	})
	return s
}

func (s *server) start() {
	s.t.Helper()
	l, err := Open(s.dir, s.opts)
	require.NoError(s.t, err)
	s.q = jobs.New(jobs.Config{Clock: s.clock, Journal: l})
	require.NoError(s.t, l.Replay(s.q))
	s.l = l
	s.commit = make(chan struct{}, 1)
	l.Subscribe(func() { signal(s.commit) })
}

func (s *server) restart() {
	s.t.Helper()
	require.NoError(s.t, s.l.Close())
	s.start()
}

// session returns a session using and watching only tube.
func (s *server) session(tube string) *jobs.Session {
	ss := s.q.NewSession(nil)
	require.NoError(s.t, ss.Use([]byte(tube)))
	_, err := ss.Watch([]byte(tube))
	require.NoError(s.t, err)
	if tube != "default" {
		_, err = ss.Ignore([]byte("default"))
		require.NoError(s.t, err)
	}
	return ss
}

func (s *server) wait(seq uint64) {
	s.t.Helper()
	for {
		done, err := s.q.Committed(seq)
		require.NoError(s.t, err)
		if done {
			return
		}
		recv(s.t, s.commit, fmt.Sprintf("commit of %d", seq))
	}
}

func (s *server) put(ss *jobs.Session, pri uint32, delay time.Duration, body string) uint64 {
	s.t.Helper()
	id, seq, err := ss.Put(jobs.PutRequest{Pri: pri, Delay: delay, TTR: time.Minute, Owned: []byte(body)})
	require.NoError(s.t, err)
	s.wait(seq)
	return id
}

func (s *server) reserve(ss *jobs.Session, id uint64) {
	s.t.Helper()
	j, err := ss.Reserve(0)
	require.NoError(s.t, err)
	require.Equal(s.t, id, j.ID)
}

func (s *server) stats(id uint64) jobs.JobStats {
	s.t.Helper()
	st, err := s.q.StatsJob(id)
	require.NoError(s.t, err, "job %d", id)
	return st
}

func TestQueueReplayEveryTransition(t *testing.T) {
	s := newServer(t, testOptions(t))
	a := s.session("a")
	ready := s.put(a, 10, 0, "ready")

	b := s.session("b")
	delayed := s.put(b, 20, time.Hour, "delayed")

	c := s.session("c")
	reserved := s.put(c, 30, 0, "reserved")
	s.reserve(c, reserved)

	d := s.session("d")
	released := s.put(d, 40, 0, "released")
	s.reserve(d, released)
	seq, err := d.Release(released, 5, 0)
	require.NoError(t, err)
	s.wait(seq)

	e := s.session("e")
	relDelayed := s.put(e, 50, 0, "released with delay")
	s.reserve(e, relDelayed)
	seq, err = e.Release(relDelayed, 6, 10*time.Minute)
	require.NoError(t, err)
	s.wait(seq)

	f := s.session("f")
	buried := s.put(f, 60, 0, "buried")
	s.reserve(f, buried)
	seq, err = f.Bury(buried, 7)
	require.NoError(t, err)
	s.wait(seq)

	g := s.session("g")
	kicked := s.put(g, 70, 0, "kicked")
	s.reserve(g, kicked)
	_, err = g.Bury(kicked, 8)
	require.NoError(t, err)
	n, seq, err := g.Kick(10)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	s.wait(seq)

	h := s.session("h")
	kickJob := s.put(h, 80, 0, "kick-job")
	s.reserve(h, kickJob)
	_, err = h.Bury(kickJob, 9)
	require.NoError(t, err)
	seq, err = h.KickJob(kickJob)
	require.NoError(t, err)
	s.wait(seq)

	i := s.session("i")
	reserveJob := s.put(i, 90, time.Hour, "reserve-job")
	_, seq, err = i.ReserveJob(reserveJob)
	require.NoError(t, err)
	s.wait(seq)

	j := s.session("j")
	deleted := s.put(j, 1, 0, "deleted")
	seq, err = j.Delete(deleted)
	require.NoError(t, err)
	s.wait(seq)
	newest := s.put(j, 1, 0, "newest")
	seq, err = j.Delete(newest)
	require.NoError(t, err)
	s.wait(seq)

	s.clock.Advance(30 * time.Minute)
	s.restart()

	st := s.stats(ready)
	assert.Equal(t, jobs.Ready, st.State)
	assert.Equal(t, uint32(10), st.Pri)
	assert.Equal(t, "a", st.Tube)
	assert.Equal(t, 30*time.Minute, st.Age, "created is kept")

	st = s.stats(delayed)
	assert.Equal(t, jobs.Delayed, st.State)
	assert.Equal(t, 30*time.Minute, st.TimeLeft, "the absolute deadline is kept")

	assert.Equal(t, jobs.Ready, s.stats(reserved).State, "reserved comes back ready")

	st = s.stats(released)
	assert.Equal(t, jobs.Ready, st.State)
	assert.Equal(t, uint32(5), st.Pri, "a release's priority survives")
	assert.Equal(t, uint32(1), st.Releases)

	// Released with a 10-minute delay 30 minutes before the restart: ready.
	st = s.stats(relDelayed)
	assert.Equal(t, jobs.Ready, st.State)
	assert.Equal(t, uint32(6), st.Pri)

	st = s.stats(buried)
	assert.Equal(t, jobs.Buried, st.State)
	assert.Equal(t, uint32(7), st.Pri)
	assert.Equal(t, uint32(1), st.Buries, "replay does not bump buries")

	st = s.stats(kicked)
	assert.Equal(t, jobs.Ready, st.State)
	assert.Equal(t, uint32(1), st.Kicks)
	st = s.stats(kickJob)
	assert.Equal(t, jobs.Ready, st.State)
	assert.Equal(t, uint32(1), st.Kicks)

	st = s.stats(reserveJob)
	assert.Equal(t, jobs.Ready, st.State, "reserve-job of a delayed job comes back ready")

	for _, id := range []uint64{deleted, newest} {
		_, err = s.q.StatsJob(id)
		assert.ErrorIs(t, err, jobs.ErrNotFound)
	}
	assert.Greater(t, s.q.NextID(), newest, "ids never repeat, even after deleting the newest")

	data, err := s.q.Peek(delayed)
	require.NoError(t, err)
	assert.Equal(t, "delayed", string(data.Body()))
	assert.Positive(t, s.stats(ready).File)
	assert.Equal(t, s.l.File(ready), s.stats(ready).File)

	// A delayed job whose deadline passes while the server is down is ready.
	s.clock.Advance(time.Hour)
	s.restart()
	assert.Equal(t, jobs.Ready, s.stats(delayed).State)
}

// TestQueueCompactionWorkload drives the real queue with a random workload
// on small segments and checks the log stays bounded and every job comes
// back after restarts exactly as the queue had it.
func TestQueueCompactionWorkload(t *testing.T) {
	opts := testOptions(t)
	opts.NoSync = true
	opts.Logger = opts.Logger.Level(1)
	s := newServer(t, opts)
	rng := rand.New(rand.NewPCG(3, 4))
	ss := s.session("w")
	live := map[uint64]bool{}
	ops := 20_000
	if testing.Short() {
		ops = 4_000
	}
	var last uint64
	for op := range ops {
		switch r := rng.IntN(10); {
		case r < 3 && len(live) < 300 || len(live) == 0:
			id, seq, err := ss.Put(jobs.PutRequest{Pri: rng.Uint32N(100), TTR: time.Minute,
				Owned: []byte(strings.Repeat("p", rng.IntN(200)))})
			require.NoError(t, err)
			live[id], last = true, seq
		case r < 5:
			j, err := ss.Reserve(0)
			if err == jobs.ErrTimedOut {
				continue // nothing ready
			}
			require.NoError(t, err)
			if rng.IntN(2) == 0 {
				last, err = ss.Bury(j.ID, rng.Uint32N(100))
			} else {
				last, err = ss.Release(j.ID, rng.Uint32N(100), 0)
			}
			require.NoError(t, err)
		case r < 7:
			_, seq, err := ss.Kick(uint32(rng.IntN(5) + 1))
			require.NoError(t, err)
			last = max(last, seq)
		default:
			for id := range live {
				seq, err := ss.Delete(id)
				if err == nil {
					delete(live, id)
					last = seq
				}
				break
			}
		}
		if op%5000 == 4999 {
			s.wait(last)
			s.restart()
			ss, last = s.session("w"), 0 // sequence numbers restart with the log
		}
	}
	s.wait(last)
	want := map[uint64]jobs.JobStats{}
	for id := range live {
		want[id] = s.stats(id)
	}
	s.restart()
	for id, w := range want {
		g := s.stats(id)
		if w.State == jobs.Reserved {
			w.State = jobs.Ready
		}
		w.File, g.File = 0, 0
		assert.Equal(t, w, g, "job %d", id)
	}
	st := s.q.Stats()
	assert.Equal(t, int64(len(want)), st.Ready+st.Buried+st.Delayed+st.Reserved)
	settle(t, s.l)
	assert.LessOrEqual(t, logBytes(t, s.dir), 3*int64(len(want))*300+2*opts.SegmentSize+4096)
	t.Logf("%d live jobs, log %d bytes, %+v", len(want), logBytes(t, s.dir), s.l.Stats())
}
